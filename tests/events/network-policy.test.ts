/**
 * The destination network policy of webhook deliveries as a pure function: the default deny list, the most
 * specific network deciding, an allow list closing everything else, IPv4-mapped IPv6 addresses judged as
 * IPv4 (in addresses and in the settings), and settings that are not networks refused at start.
 */
import { addressAllowed, DEFAULT_DENY_NETWORKS, networkPolicy, parseNetworks } from '../../engine/events/network-policy';
import { loadConfig } from '../../engine/config';

describe('the network policy', () => {
  const byDefault = networkPolicy([], DEFAULT_DENY_NETWORKS);

  test.each([
    ['169.254.169.254', false],
    ['169.254.170.2', false],
    ['::ffff:169.254.169.254', false],
    ['::ffff:a9fe:a9fe', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fd00:ec2::254', false],
    ['fd00:c1::a9fe:a9fe', false],
    ['100.100.100.200', false],
    ['168.63.129.16', false],
    ['127.0.0.1', true],
    ['::1', true],
    ['10.1.2.3', true],
    ['192.0.2.10', true],
    ['2001:db8::1', true],
    ['not an address', false],
  ])('by default %s: %s', (address, allowed) => {
    expect(addressAllowed(address, byDefault)).toBe(allowed);
  });

  test('the most specific network decides; a deny wins a tie', () => {
    const p = networkPolicy(['10.1.2.0/24', '10.9.0.0/16'], ['10.0.0.0/8', '10.9.0.0/16', '10.1.2.3']);
    expect(addressAllowed('10.1.2.4', p)).toBe(true);
    expect(addressAllowed('10.1.2.3', p)).toBe(false);
    expect(addressAllowed('10.9.9.9', p)).toBe(false);
    expect(addressAllowed('10.5.5.5', p)).toBe(false);
  });

  test('with an allow list, an address no network names is refused', () => {
    const p = networkPolicy(['192.0.2.0/24', '2001:db8::/32'], []);
    expect(addressAllowed('192.0.2.7', p)).toBe(true);
    expect(addressAllowed('::ffff:192.0.2.7', p)).toBe(true);
    expect(addressAllowed('2001:db8:1::1', p)).toBe(true);
    expect(addressAllowed('198.51.100.1', p)).toBe(false);
    expect(addressAllowed('127.0.0.1', p)).toBe(false);
  });

  test('an IPv4-mapped network in a setting is the IPv4 network it carries', () => {
    const p = networkPolicy([], ['::ffff:127.0.0.0/104']);
    expect(addressAllowed('127.0.0.5', p)).toBe(false);
    expect(addressAllowed('::ffff:127.0.0.5', p)).toBe(false);
    expect(addressAllowed('128.0.0.1', p)).toBe(true);
  });

  test('settings: a list, none, the default, and a bad network refused naming the setting', () => {
    expect(parseNetworks('X', '10.0.0.0/8, fd00::/8 192.0.2.1', [])).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.1']);
    expect(parseNetworks('X', 'none', DEFAULT_DENY_NETWORKS)).toEqual([]);
    expect(parseNetworks('X', undefined, DEFAULT_DENY_NETWORKS)).toEqual(DEFAULT_DENY_NETWORKS);
    expect(() => loadConfig({ PATCHBAY_WEBHOOK_DENY_NETWORKS: '10.0.0.0/33' })).toThrow('PATCHBAY_WEBHOOK_DENY_NETWORKS: "10.0.0.0/33" is not a network');
    expect(() => loadConfig({ PATCHBAY_WEBHOOK_ALLOW_NETWORKS: 'example.com' })).toThrow('PATCHBAY_WEBHOOK_ALLOW_NETWORKS: "example.com" is not a network');
    const config = loadConfig({});
    expect(config.webhookDenyNetworks).toEqual(DEFAULT_DENY_NETWORKS);
    expect(config.webhookAllowNetworks).toEqual([]);
    expect([config.eventsConcurrency, config.eventsPerWebhook, config.webhookMaxResponse, config.webhookCaDir, config.webhookCaMaxSize]).toEqual([32, 8, 65_536, null, 1_048_576]);
  });
});
