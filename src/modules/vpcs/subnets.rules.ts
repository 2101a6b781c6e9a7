import type { FieldErrors } from '../../errors/errors.js';
import { labelProblem, overlaps, type Range4, subnetRange } from './vpcs.rules.js';

/** A subnet of a request, checked: its label and range. */
export interface CheckedSubnet {
  label: string;
  range: Range4;
}

/**
 * Checks subnets to add to a VPC that already has `existing`: labels by the label rule and unique
 * in the VPC; ranges by the subnet rules and overlapping neither the VPC's subnets nor each
 * other. `at(field)` names a subnet's field.
 */
export function checkSubnets(
  fe: FieldErrors,
  list: readonly { label: string; ipv4: string }[],
  existing: readonly { label: string; ipv4_start: number | string; ipv4_end: number | string }[],
  at: (n: number, field: string) => string,
  /** The VPC's own IPv4 ranges, when it has some: each subnet must lie inside one. */
  vpcRanges?: readonly Range4[],
): CheckedSubnet[] {
  const out: CheckedSubnet[] = [];
  const taken = existing.map((s) => ({
    label: s.label,
    start: Number(s.ipv4_start),
    end: Number(s.ipv4_end),
  }));
  const labels = new Set(taken.map((s) => s.label));
  const ranges: { start: number; end: number }[] = [...taken];
  for (const [n, s] of list.entries()) {
    const lp = labelProblem(s.label);
    if (lp) fe.add(at(n, 'label'), lp);
    else if (labels.has(s.label))
      fe.add(at(n, 'label'), 'Label must be unique among the VPC\u2019s subnets');
    labels.add(s.label);
    const r = subnetRange(s.ipv4, vpcRanges);
    if (typeof r === 'string') {
      fe.add(at(n, 'ipv4'), r);
      continue;
    }
    if (ranges.some((o) => overlaps(o, r)))
      fe.add(at(n, 'ipv4'), 'ipv4 must not overlap another subnet of the VPC');
    ranges.push(r);
    out.push({ label: s.label, range: r });
  }
  return out;
}
