import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressAt,
  addressCount,
  canonicalIp,
  cidrContains,
  cidrsOverlap,
  hostPart,
  isCidr,
  isIp,
  isNetworkCidr,
  lastAddress,
  networkAddress,
  networkOf,
} from "../src/ip.js";

const arbV4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join("."));
const arbCidrV4 = fc.tuple(arbV4, fc.integer({ min: 0, max: 32 })).map(([a, p]) => networkOf(`${a}/${p}`));

describe("ip helpers", () => {
  it("parses only canonical addresses", () => {
    expect(isIp("10.0.0.1")).toBe(true);
    expect(isIp("fd00::1")).toBe(true);
    expect(isIp("010.0.0.1")).toBe(false);
    expect(isIp("10.0.0")).toBe(false);
    expect(isIp("10.0.0.1/24")).toBe(false);
    expect(isIp("fe80::1%eth0")).toBe(false);
    expect(isCidr("10.0.0.1/24")).toBe(true);
    expect(isCidr("10.0.0.1/33")).toBe(false);
    expect(isCidr("10.0.0.1/024")).toBe(false);
    expect(isNetworkCidr("10.0.0.0/24")).toBe(true);
    expect(isNetworkCidr("10.0.0.1/24")).toBe(false);
  });

  it("computes network, broadcast and size", () => {
    expect(networkAddress("10.118.12.20/24")).toBe("10.118.12.0");
    expect(lastAddress("10.118.12.20/24")).toBe("10.118.12.255");
    expect(networkOf("10.118.12.20/24")).toBe("10.118.12.0/24");
    expect(addressCount("10.96.0.0/12")).toBe(1048576n);
    expect(hostPart("10.118.12.100/24")).toBe("10.118.12.100");
    expect(canonicalIp("FD00:0:0::1")).toBe("fd00::1");
    expect(cidrContains("10.118.11.0/24", "10.118.11.255")).toBe(true);
    expect(cidrContains("10.118.11.0/24", "10.118.12.0")).toBe(false);
    expect(cidrContains("10.0.0.0/8", "fd00::1")).toBe(false);
    expect(cidrsOverlap("10.96.0.0/12", "10.100.0.0/16")).toBe(true);
    expect(cidrsOverlap("10.96.0.0/12", "10.112.0.0/16")).toBe(false);
  });

  it("contains every address it enumerates, and nothing past the end", () => {
    fc.assert(
      fc.property(arbCidrV4, fc.bigInt({ min: 0n, max: 2n ** 32n }), (cidr, n) => {
        const size = addressCount(cidr);
        const i = n % size;
        expect(cidrContains(cidr, addressAt(cidr, i))).toBe(true);
        expect(() => addressAt(cidr, size)).toThrow(RangeError);
      }),
    );
  });

  it("overlap is symmetric and agrees with containment of the network address", () => {
    fc.assert(
      fc.property(arbCidrV4, arbCidrV4, (a, b) => {
        expect(cidrsOverlap(a, b)).toBe(cidrsOverlap(b, a));
        const contains = cidrContains(a, networkAddress(b)) || cidrContains(b, networkAddress(a));
        expect(cidrsOverlap(a, b)).toBe(contains);
      }),
    );
  });

  it("round-trips an address through its network and offset", () => {
    fc.assert(
      fc.property(arbV4, fc.integer({ min: 0, max: 32 }), (addr, prefix) => {
        const net = networkOf(`${addr}/${prefix}`);
        expect(isNetworkCidr(net)).toBe(true);
        expect(cidrContains(net, addr)).toBe(true);
      }),
    );
  });
});
