import { describe, expect, test } from "bun:test";
import { desiredLbRules, permissionOf, ruleChanges, ruleKey, rulesOf } from "./lb-security-groups.ts";

describe("security group rules", () => {
  test("the ELB group admits each port from each range, plus ICMP fragmentation-needed for IPv4", () => {
    expect(desiredLbRules([80, 443], ["10.0.0.0/8", "2001:db8::/32"]).map(ruleKey)).toEqual([
      "tcp|80|80|10.0.0.0/8",
      "tcp|443|443|10.0.0.0/8",
      "icmp|3|4|10.0.0.0/8",
      "tcp|80|80|2001:db8::/32",
      "tcp|443|443|2001:db8::/32",
    ]);
  });

  test("described permissions split into one rule per source, and back", () => {
    const rules = rulesOf([
      {
        IpProtocol: "tcp",
        FromPort: 80,
        ToPort: 80,
        IpRanges: [{ CidrIp: "10.0.0.0/8" }],
        Ipv6Ranges: [{ CidrIpv6: "2001:db8::/32" }],
      },
      { IpProtocol: "-1", UserIdGroupPairs: [{ GroupId: "sg-1", UserId: "123" }] },
    ]);
    expect(rules.map(ruleKey)).toEqual(["tcp|80|80|10.0.0.0/8", "tcp|80|80|2001:db8::/32", "-1|||sg:sg-1"]);
    expect(rules.map(permissionOf)).toEqual([
      { IpProtocol: "tcp", FromPort: 80, ToPort: 80, IpRanges: [{ CidrIp: "10.0.0.0/8" }] },
      { IpProtocol: "tcp", FromPort: 80, ToPort: 80, Ipv6Ranges: [{ CidrIpv6: "2001:db8::/32" }] },
      { IpProtocol: "-1", UserIdGroupPairs: [{ GroupId: "sg-1" }] },
    ]);
  });

  test("changes: missing rules added once, extra rules removed, equal rules kept", () => {
    const actual = desiredLbRules([80], ["0.0.0.0/0"]);
    const desired = [...desiredLbRules([80, 8080], ["10.0.0.0/8"]), ...desiredLbRules([80], ["10.0.0.0/8"])];
    const { add, remove } = ruleChanges(actual, desired);
    expect(add.map(ruleKey)).toEqual(["tcp|80|80|10.0.0.0/8", "tcp|8080|8080|10.0.0.0/8", "icmp|3|4|10.0.0.0/8"]);
    expect(remove.map(ruleKey)).toEqual(["tcp|80|80|0.0.0.0/0", "icmp|3|4|0.0.0.0/0"]);
    expect(ruleChanges(actual, actual)).toEqual({ add: [], remove: [] });
  });
});
