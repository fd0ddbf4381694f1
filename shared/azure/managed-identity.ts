import type { TokenCredential } from '@azure/core-auth';

/**
 * The app's managed identity (`clientId`: the user-assigned one; else `DefaultAzureCredential`),
 * built on its first token request: `@azure/identity` is a large share of a cold start. One
 * credential per caller keeps one token cache, so a client built once reuses its token until it
 * nears expiry instead of asking the identity endpoint on every call.
 */
export function managedIdentity(clientId: string | undefined): TokenCredential {
  let credential: TokenCredential | undefined;
  return {
    getToken(scopes, options) {
      if (!credential) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const identity = require('@azure/identity') as typeof import('@azure/identity');
        credential = clientId ? new identity.ManagedIdentityCredential({ clientId }) : new identity.DefaultAzureCredential();
      }
      return credential.getToken(scopes, options);
    },
  };
}
