import { createHash, createHmac } from 'node:crypto';

/**
 * Azure Communication Services access-key authentication: every request is signed with
 * HMAC-SHA256 over its method, path and query, date, host and body hash, using the resource's
 * access key from the connection string (`endpoint=https://…;accesskey=…`). The same signer serves
 * SMS and e-mail. The key never leaves this module except as the HMAC key.
 */

export interface AcsCredentials {
  /** The resource endpoint, e.g. `https://my-resource.communication.azure.com`, without a trailing slash. */
  endpoint: string;
  /** The access key's bytes (the connection string holds them in base64). */
  accessKey: Buffer;
}

/**
 * Reads an ACS connection string. Throws for a malformed one (bad configuration); the message names
 * what is wrong, never the value.
 */
export function parseAcsConnectionString(connectionString: string): AcsCredentials {
  const parts = new Map<string, string>();
  for (const segment of connectionString.split(';')) {
    const separator = segment.indexOf('=');
    if (separator <= 0) continue;
    parts.set(segment.slice(0, separator).trim().toLowerCase(), segment.slice(separator + 1).trim());
  }
  const endpoint = parts.get('endpoint');
  const accessKey = parts.get('accesskey');
  if (!endpoint || !accessKey) {
    throw new Error('ACS_CONNECTION_STRING must look like endpoint=https://…;accesskey=…');
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error('ACS_CONNECTION_STRING: the endpoint is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('ACS_CONNECTION_STRING: the endpoint must be an https:// URL');
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(accessKey)) {
    throw new Error('ACS_CONNECTION_STRING: the access key is not base64');
  }
  return { endpoint: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, accessKey: Buffer.from(accessKey, 'base64') };
}

export interface AcsRequestToSign {
  method: string;
  /** The full request URL; its path and query and its host (with a non-default port) are signed. */
  url: string;
  /** The exact body sent ('' for none). */
  body: string;
  accessKey: Buffer;
  /** The signing instant; ACS refuses dates more than 15 minutes off. */
  now: Date;
}

/** The headers that authenticate one request: `x-ms-date`, `x-ms-content-sha256` and `Authorization`. */
export function acsAuthenticationHeaders(request: AcsRequestToSign): Record<string, string> {
  const url = new URL(request.url);
  const date = request.now.toUTCString();
  const contentHash = createHash('sha256').update(request.body, 'utf8').digest('base64');
  // `url.host` holds the port only when it is not the scheme's default: what `fetch` sends as Host.
  const stringToSign = `${request.method.toUpperCase()}\n${url.pathname}${url.search}\n${date};${url.host};${contentHash}`;
  const signature = createHmac('sha256', request.accessKey).update(stringToSign, 'utf8').digest('base64');
  return {
    'x-ms-date': date,
    'x-ms-content-sha256': contentHash,
    authorization: `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`,
  };
}
