/**
 * The budget a client address spends: the per-address rate limit (`ip:`/`lookup:`), the anonymous
 * cost budget and the WebSocket per-address cap all count `addressBucket(request.ip)`, never the
 * raw text of `request.ip`, which is what the last untrusted `X-Forwarded-For` entry says:
 *
 * - without a port: some load balancers append `address:port` (Azure Application Gateway writes
 *   `203.0.113.7:51234`), and every new connection of the same client has another port;
 * - in one spelling: `2001:DB8::1`, `2001:db8:0:0::1` and `[2001:db8::1]` are one address, and an
 *   IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) is its IPv4 address;
 * - an IPv6 address by its /64: one host or one subscriber holds a whole /64 (SLAAC, privacy
 *   addresses), so a budget per IPv6 address would be a new budget for every address it picks.
 *
 * Anything else (not an IP address) is its own bucket, as written.
 */
import net from 'node:net';

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;

/** The 8 groups of an IPv6 address (as WHATWG URL writes it: lowercase, hex groups, one `::`). */
function ipv6Groups(address: string): string[] {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right];
}

export function addressBucket(ip: string): string {
  let address = ip.trim();
  address = IPV4_WITH_PORT.exec(address)?.[1] ?? BRACKETED.exec(address)?.[1] ?? address;
  address = address.replace(/%.*$/, '');
  if (net.isIPv4(address)) return address;
  if (!net.isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [hi = 0, lo = 0] = groups.slice(6).map((g) => parseInt(g, 16));
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}
