// IP networks as operators write them (a CIDR list flag).
import { isIP } from 'node:net';

/** `a.b.c.d/n` or `x:y::z/n` (a bare address is /32 or /128); throws an Error saying what is wrong. */
export function parseCidr(cidr: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [address = '', bits, extra] = cidr.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) throw new Error(`"${cidr}" is not an IP network (a.b.c.d/n or x:y::z/n)`);
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!/^\d+$/.test(bits ?? String(max)) || prefix > max) throw new Error(`"${cidr}": the prefix must be 0–${max}`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
