// DescribeInstances' XML (EC2 Query API, 2016-11-15) to the provisioner's view of an instance: its state, group and
// every address it may call the provisioner from.
import { describe, expect, it } from "vitest";
import { parseDescribeInstances } from "../src/aws.js";

const response = (instances: string): string => `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>8f7724cf-496f-496e-8fe3-example</requestId>
  <reservationSet><item><reservationId>r-1234567890abcdef0</reservationId><instancesSet>${instances}</instancesSet></item></reservationSet>
</DescribeInstancesResponse>`;

const tags = (group: string) =>
  `<tagSet><item><key>aws:autoscaling:groupName</key><value>${group}</value></item></tagSet>`;

describe("parseDescribeInstances", () => {
  it("reads an IPv4 instance's private and public address, and no IPv6", () => {
    const xml = response(`<item><instanceId>i-0123456789abcdef0</instanceId>
      <instanceState><code>16</code><name>running</name></instanceState>
      <privateIpAddress>172.24.1.10</privateIpAddress><ipAddress>203.0.113.9</ipAddress>${tags("home-ci")}</item>`);
    expect(parseDescribeInstances(xml)).toEqual([
      {
        id: "i-0123456789abcdef0",
        state: "running",
        privateIp: "172.24.1.10",
        publicIp: "203.0.113.9",
        ipv6: [],
        group: "home-ci",
      },
    ]);
  });

  it("reads the IPv6 addresses of an IPv6-only instance (no IPv4), from the instance and its interfaces, once each", () => {
    const xml = response(`<item><instanceId>i-0123456789abcdef1</instanceId>
      <instanceState><code>16</code><name>running</name></instanceState>
      <networkInterfaceSet><item><networkInterfaceId>eni-0123456789abcdef0</networkInterfaceId>
        <ipv6AddressesSet><item><ipv6Address>2a05:d014:0:1::10</ipv6Address><isPrimaryIpv6>true</isPrimaryIpv6></item>
          <item><ipv6Address>2a05:d014:0:1::11</ipv6Address></item></ipv6AddressesSet>
      </item></networkInterfaceSet>
      <ipv6Address>2a05:d014:0:1::10</ipv6Address>${tags("home6-ci")}</item>`);
    expect(parseDescribeInstances(xml)).toEqual([
      {
        id: "i-0123456789abcdef1",
        state: "running",
        privateIp: undefined,
        publicIp: undefined,
        ipv6: ["2a05:d014:0:1::10", "2a05:d014:0:1::11"],
        group: "home6-ci",
      },
    ]);
  });
});
