import { describe, expect, it } from 'vitest';
import { CLIENT_LABELS, clientLabelOf, toClientLabel } from './client-label';

describe('clientLabelOf', () => {
  it.each([
    ['CommunityApp/42 CFNetwork/1494.0.7 Darwin/23.4.0', 'iOS app'],
    ['Expo/1017699 CFNetwork/1410.0.3 Darwin/22.6.0', 'iOS app'],
    ['CommunityApp/1.4.0 (org.example.community; build:77; iOS 17.4.1) Alamofire/5.9.0', 'iOS app'],
    ['okhttp/4.9.2', 'Android app'],
    ['Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP1A.240405.002)', 'Android app'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'iOS browser'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36', 'Android browser'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0', 'Windows browser'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 'macOS browser'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 'ChromeOS browser'],
    ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 'Linux browser'],
    ['Mozilla/5.0 (compatible; SomeBrowser/1.0)', 'browser'],
    ['curl/8.5.0', 'unknown'],
    ['node', 'unknown'],
    ['', 'unknown'],
    [null, 'unknown'],
  ] as const)('labels %j as %s', (userAgent, label) => {
    expect(clientLabelOf(userAgent)).toBe(label);
  });

  it('reads only the start of a huge header, and every label fits the 32-character column', () => {
    expect(clientLabelOf(`Mozilla/5.0 (${'x'.repeat(20_000)}; Windows)`)).toBe('browser');
    expect(clientLabelOf(`${'a'.repeat(600)} okhttp/4.9.2`)).toBe('unknown');
    for (const label of CLIENT_LABELS) expect(label.length).toBeLessThanOrEqual(32);
  });

  it('never returns anything of the header itself', () => {
    const header = 'Mozilla/5.0 (Windows NT 10.0) canary-device-owner-olga';
    expect(CLIENT_LABELS).toContain(clientLabelOf(header));
    expect(clientLabelOf(header)).not.toContain('olga');
  });
});

describe('toClientLabel', () => {
  it('shows a stored label as it is and anything else as unknown', () => {
    expect(toClientLabel('Android app')).toBe('Android app');
    expect(toClientLabel('Mozilla/5.0')).toBe('unknown');
    expect(toClientLabel(null)).toBe('unknown');
  });
});
