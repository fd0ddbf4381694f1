import type { Logger } from '../logging/logger';

/** What sign-in attempts without a client address count under (no IP address is spelled this way). */
export const UNKNOWN_CLIENT_ADDRESS = 'unknown';

/**
 * Why requests come without a client address, for the operator: no proxy is trusted at all
 * (`TRUST_PROXY_HOPS=0`, the contract's default, right only when nothing stands in front of the
 * app), or the trusted proxies wrote no usable `X-Forwarded-For` entry (a request that bypassed
 * them, or a hop count larger than the proxies there are).
 */
export type UnknownAddressReason = 'no_trusted_proxy' | 'no_forwarded_address';

/** The reason `clientAddress(...)` found nothing under this hop count. */
export function unknownAddressReason(trustProxyHops: number): UnknownAddressReason {
  return trustProxyHops <= 0 ? 'no_trusted_proxy' : 'no_forwarded_address';
}

export interface UnknownAddressWarningOptions {
  logger: Logger;
  /** `config.trustProxyHops`, named in the warn line with the reason it implies. */
  trustProxyHops: number;
  /** The line's message: which limit the attempts share. */
  message: string;
  /** The shared limit, for the line. */
  maxFailures: number;
}

/**
 * A callback for every sign-in attempt without a client address: the first call of the process
 * writes one warn line (the reason and `trustProxyHops`, nothing from the request), later calls
 * nothing, so an operator sees the misconfiguration without a line per attempt. Those attempts
 * share one address limit (`UNKNOWN_CLIENT_ADDRESS`): it fails closed, so a client cannot escape
 * the limit by hiding its address, at the price that every address-less client shares it.
 */
export function warnOnceWithoutAddress(options: UnknownAddressWarningOptions): () => void {
  let warned = false;
  return () => {
    if (warned) return;
    warned = true;
    options.logger.warn(
      { trustProxyHops: options.trustProxyHops, reason: unknownAddressReason(options.trustProxyHops), maxFailures: options.maxFailures },
      options.message,
    );
  };
}
