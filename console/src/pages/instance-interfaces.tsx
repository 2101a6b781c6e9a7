import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { Details, ErrorBox, Loading, Section, Table } from '../components/ui';
import { all, del, get, type Page, post, put } from '../lib/api';
import { useOptions, useVpcSubnets } from '../lib/catalogue';
import type { Instance } from './compute';

/** An interface of the new generation, as `/compute/instances/{id}/interfaces` answers it. */
export interface Iface {
  id: number;
  mac_address: string;
  version: number;
  default_route: { ipv4?: boolean; ipv6?: boolean };
  public: {
    ipv4: { addresses: { address: string; primary: boolean }[]; shared: { address: string }[] };
    ipv6: {
      ranges: { range: string }[];
      shared: { range: string }[];
      slaac: { address: string; prefix: number }[];
    };
  } | null;
  vpc: {
    vpc_id: number;
    subnet_id: number;
    ipv4: {
      addresses: { address: string; primary: boolean; nat_1_1_address: string | null }[];
      ranges: { range: string }[];
    };
    ipv6: {
      slaac: { range: string; address: string }[];
      ranges: { range: string }[];
      is_public: boolean;
    } | null;
  } | null;
  vlan: { vlan_label: string; ipam_address: string | null } | null;
}

interface Settings {
  network_helper: boolean;
  default_route: {
    ipv4_interface_id: number | null;
    ipv4_eligible_interface_ids: number[];
    ipv6_interface_id: number | null;
    ipv6_eligible_interface_ids: number[];
  };
}

const kindOf = (i: Iface) => (i.public ? 'public' : i.vpc ? 'vpc' : 'vlan');

/** An interface's addresses in words: IPv4 (primary, 1:1 NAT), ranges, IPv6. */
export function addressesOf(i: Iface): string {
  if (i.public)
    return [
      ...i.public.ipv4.addresses.map((a) => `${a.address}${a.primary ? ' (primary)' : ''}`),
      ...i.public.ipv4.shared.map((a) => `${a.address} (shared)`),
      ...i.public.ipv6.slaac.map((a) => `${a.address}/${a.prefix}`),
      ...i.public.ipv6.ranges.map((r) => `${r.range} (routed)`),
    ].join(', ');
  if (i.vpc)
    return [
      ...i.vpc.ipv4.addresses.map(
        (a) => `${a.address}${a.nat_1_1_address ? ` (1:1 NAT ${a.nat_1_1_address})` : ''}`,
      ),
      ...i.vpc.ipv4.ranges.map((r) => `${r.range} (range)`),
      ...(i.vpc.ipv6?.slaac ?? []).map((s) => `${s.address} (SLAAC ${s.range})`),
      ...(i.vpc.ipv6?.ranges ?? []).map((r) => `${r.range} (routed)`),
    ].join(', ');
  return i.vlan
    ? `${i.vlan.vlan_label}${i.vlan.ipam_address ? ` ${i.vlan.ipam_address}` : ''}`
    : '';
}

const routesOf = (i: Iface) =>
  [i.default_route.ipv4 ? 'IPv4' : '', i.default_route.ipv6 ? 'IPv6' : '']
    .filter(Boolean)
    .join(', ');

const nameOf = (i: Iface) => `${kindOf(i)} interface ${i.id}`;

/** The firewalls of one interface, each removable (its device on the firewall). */
function InterfaceFirewalls({
  path,
  iface,
  writable,
}: {
  path: string;
  iface: Iface;
  writable: boolean;
}) {
  const client = useQueryClient();
  const q = useQuery({
    queryKey: [`${path}/interfaces/${iface.id}/firewalls`],
    queryFn: () =>
      get<Page<{ id: number; label: string }>>(`${path}/interfaces/${iface.id}/firewalls`),
  });
  if (!iface.public && !iface.vpc) return <span className="muted">none (VLAN)</span>;
  if (q.error) return <ErrorBox error={q.error} />;
  const list = q.data?.data ?? [];
  if (list.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="plain">
      {list.map((f) => (
        <li key={f.id}>
          <Link to={`/console/firewalls/${f.id}`}>{f.label}</Link>{' '}
          {writable ? (
            <ActionButton
              label={`Remove ${f.label} from ${nameOf(iface)}`}
              secondary
              run={async () => {
                const devices = await all<{ id: number; entity: { id: number; type: string } }>(
                  `/networking/firewalls/${f.id}/devices`,
                );
                const device = devices.find(
                  (d) => d.entity.type === 'compute_interface' && d.entity.id === iface.id,
                );
                if (device) await del(`/networking/firewalls/${f.id}/devices/${device.id}`);
                await client.invalidateQueries();
              }}
            />
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * The instance's own interfaces (new generation): the list with addresses, default routes and
 * firewalls; add, edit (VPC), delete; a firewall per interface; the interface settings.
 */
function Interfaces({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries();
  const q = useQuery({
    queryKey: [`${path}/interfaces`],
    queryFn: () => get<{ interfaces: Iface[] }>(`${path}/interfaces`),
  });
  const settings = useQuery({
    queryKey: [`${path}/interfaces/settings`],
    queryFn: () => get<Settings>(`${path}/interfaces/settings`),
  });
  const firewalls = useOptions<{ id: number; label: string }>('/networking/firewalls', (f) => ({
    value: String(f.id),
    label: f.label,
  }));
  const vpcs = useVpcSubnets();
  const [kind, setKind] = useState('vpc');
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const rows = q.data.interfaces;
  const subnets = (vpcs.data ?? [])
    .filter((v) => v.region === i.region)
    .flatMap((v) =>
      v.subnets.map((s) => ({ value: String(s.id), label: `${v.label} / ${s.label} (${s.ipv4})` })),
    );
  const s = settings.data;
  const routeName = (id: number | null) => {
    const r = rows.find((x) => x.id === id);
    return r ? nameOf(r) : id;
  };
  const routeChoices = (ids: number[]) =>
    ids.map((id) => {
      const r = rows.find((x) => x.id === id);
      return { value: String(id), label: r ? nameOf(r) : String(id) };
    });
  return (
    <>
      <Section title="Network interfaces">
        <Table
          caption="Network interfaces"
          rows={rows}
          rowKey={(r) => r.id}
          columns={[
            { key: 'id', label: 'Id' },
            { key: 'kind', label: 'Kind', render: kindOf },
            { key: 'addresses', label: 'Addresses', render: addressesOf },
            { key: 'route', label: 'Default route', render: routesOf },
            { key: 'mac_address', label: 'MAC' },
            {
              key: 'firewalls',
              label: 'Firewalls',
              render: (r) => <InterfaceFirewalls path={path} iface={r} writable={writable} />,
            },
            ...(writable
              ? [
                  {
                    key: 'x',
                    label: 'Actions',
                    render: (r: Iface) => (
                      <ActionButton
                        label={`Delete ${nameOf(r)}`}
                        secondary
                        confirm={`Delete the ${nameOf(r)}?`}
                        run={async () => {
                          await del(`${path}/interfaces/${r.id}`);
                          await refresh();
                        }}
                      />
                    ),
                  },
                ]
              : []),
          ]}
        />
      </Section>
      {writable ? (
        <>
          <Disclosure label="Add an interface">
            <Form
              fields={[
                {
                  name: 'kind',
                  label: 'Kind',
                  type: 'select',
                  required: true,
                  initial: kind,
                  options: ['public', 'vpc', 'vlan'].map((v) => ({ value: v, label: v })),
                },
                ...(kind === 'vpc'
                  ? [
                      {
                        name: 'subnet_id',
                        label: 'VPC subnet',
                        type: 'select' as const,
                        required: true,
                        options: subnets,
                      },
                      {
                        name: 'address',
                        label: 'VPC IPv4 address',
                        initial: 'auto',
                        help: 'auto: the first free address of the subnet.',
                      },
                      {
                        name: 'nat',
                        label: 'Public IPv4 mapped 1:1 (NAT)',
                        type: 'checkbox' as const,
                      },
                    ]
                  : []),
                ...(kind === 'vlan'
                  ? [
                      { name: 'vlan_label', label: 'VLAN label', required: true },
                      {
                        name: 'ipam_address',
                        label: 'IPAM address',
                        placeholder: '10.0.0.1/24',
                      },
                    ]
                  : [
                      {
                        name: 'firewall_id',
                        label: 'Firewall',
                        type: 'select' as const,
                        options: firewalls,
                      },
                    ]),
              ]}
              onChange={(v) => {
                if (typeof v.kind === 'string' && v.kind !== kind) setKind(v.kind);
              }}
              submitLabel="Add interface"
              onSubmit={async (v) => {
                const body: Record<string, unknown> = {};
                if (v.firewall_id !== undefined) body.firewall_id = Number(v.firewall_id);
                if (v.kind === 'public') body.public = {};
                else if (v.kind === 'vpc')
                  body.vpc = {
                    subnet_id: v.subnet_id === undefined ? undefined : Number(v.subnet_id),
                    ipv4: {
                      addresses: [
                        {
                          address: v.address ?? 'auto',
                          primary: true,
                          ...(v.nat ? { nat_1_1_address: 'auto' } : {}),
                        },
                      ],
                    },
                  };
                else body.vlan = { vlan_label: v.vlan_label, ipam_address: v.ipam_address ?? null };
                await post(`${path}/interfaces`, body);
                await refresh();
              }}
            />
          </Disclosure>
          {rows
            .filter((r) => r.vpc)
            .map((r) => {
              const a = r.vpc?.ipv4.addresses.find((x) => x.primary) ?? r.vpc?.ipv4.addresses[0];
              return (
                <Disclosure key={r.id} label={`Edit ${nameOf(r)}`}>
                  <Form
                    fields={[
                      { name: 'address', label: 'VPC IPv4 address', initial: a?.address ?? 'auto' },
                      {
                        name: 'nat',
                        label: 'Public IPv4 mapped 1:1 (NAT)',
                        type: 'checkbox',
                        initial: Boolean(a?.nat_1_1_address),
                      },
                      {
                        name: 'ranges',
                        label:
                          'IPv4 ranges (comma separated; a prefix such as /32 takes a free one)',
                        type: 'list',
                        initial: (r.vpc?.ipv4.ranges ?? []).map((x) => x.range).join(', '),
                      },
                    ]}
                    submitLabel="Save interface"
                    onSubmit={async (v) => {
                      await put(`${path}/interfaces/${r.id}`, {
                        vpc: {
                          ipv4: {
                            addresses: [
                              {
                                address: v.address ?? 'auto',
                                primary: true,
                                nat_1_1_address: v.nat ? (a?.nat_1_1_address ?? 'auto') : null,
                              },
                            ],
                            ranges: ((v.ranges as string[] | undefined) ?? []).map((range) => ({
                              range,
                            })),
                          },
                        },
                      });
                      await refresh();
                    }}
                  />
                </Disclosure>
              );
            })}
          <Disclosure label="Add a firewall to an interface">
            <Form
              fields={[
                {
                  name: 'interface',
                  label: 'Interface',
                  type: 'select',
                  required: true,
                  options: rows
                    .filter((r) => !r.vlan)
                    .map((r) => ({ value: String(r.id), label: nameOf(r) })),
                },
                {
                  name: 'firewall',
                  label: 'Firewall',
                  type: 'select',
                  required: true,
                  options: firewalls,
                },
              ]}
              submitLabel="Add firewall"
              onSubmit={async (v) => {
                await post(`/networking/firewalls/${String(v.firewall)}/devices`, {
                  type: 'compute_interface',
                  id: Number(v.interface),
                });
                await refresh();
              }}
            />
          </Disclosure>
        </>
      ) : null}
      <Section title="Interface settings">
        <ErrorBox error={settings.error} />
        {s ? (
          <>
            <Details
              value={{
                network_helper: s.network_helper,
                ipv4_default_route: routeName(s.default_route.ipv4_interface_id),
                ipv6_default_route: routeName(s.default_route.ipv6_interface_id),
              }}
            />
            {writable ? (
              <Disclosure label="Edit interface settings">
                <Form
                  fields={[
                    {
                      name: 'network_helper',
                      label: 'Network helper',
                      type: 'checkbox',
                      initial: s.network_helper,
                    },
                    {
                      name: 'ipv4',
                      label: 'IPv4 default route',
                      type: 'select',
                      options: routeChoices(s.default_route.ipv4_eligible_interface_ids),
                      initial: String(s.default_route.ipv4_interface_id ?? ''),
                    },
                    {
                      name: 'ipv6',
                      label: 'IPv6 default route',
                      type: 'select',
                      options: routeChoices(s.default_route.ipv6_eligible_interface_ids),
                      initial: String(s.default_route.ipv6_interface_id ?? ''),
                    },
                  ]}
                  submitLabel="Save interface settings"
                  onSubmit={async (v) => {
                    await put(`${path}/interfaces/settings`, {
                      network_helper: v.network_helper,
                      default_route: {
                        ...(v.ipv4 !== undefined ? { ipv4_interface_id: Number(v.ipv4) } : {}),
                        ...(v.ipv6 !== undefined ? { ipv6_interface_id: Number(v.ipv6) } : {}),
                      },
                    });
                    await refresh();
                  }}
                />
              </Disclosure>
            ) : null}
          </>
        ) : null}
        <p className="help">
          Which generation new instances get is an account setting (
          <Link to="/console/account">Account</Link>).
        </p>
      </Section>
    </>
  );
}

/**
 * A legacy instance's upgrade to interfaces of its own: a dry run first shows the interfaces it
 * would make, then the upgrade itself.
 */
function Upgrade({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  const [preview, setPreview] = useState<{ config_id: number; interfaces: Iface[] }>();
  const configs = useOptions<{ id: number; label: string }>(`${path}/configs`, (c) => ({
    value: String(c.id),
    label: c.label,
  }));
  return (
    <Section title="Network interfaces">
      <p>
        This instance uses configuration profile interfaces (legacy): its interfaces are in its
        configuration profiles (the Configurations tab).
      </p>
      {writable ? (
        <>
          <p>
            Upgrading gives it interfaces of its own, made from one profile's; every profile then
            loses its interfaces. A dry run shows them first.
          </p>
          <Form
            fields={[
              {
                name: 'config_id',
                label: 'Configuration profile',
                type: 'select',
                options: configs,
                help: 'Empty: the last booted one, or the only one.',
              },
            ]}
            submitLabel="Preview the upgrade (dry run)"
            onSubmit={async (v) => {
              setPreview(
                await post<{ config_id: number; interfaces: Iface[] }>(
                  `${path}/upgrade-interfaces`,
                  {
                    ...(v.config_id !== undefined ? { config_id: Number(v.config_id) } : {}),
                    dry_run: true,
                  },
                ),
              );
            }}
          />
          {preview ? (
            <>
              <h3>The interfaces the upgrade makes</h3>
              <Table
                caption="Interfaces after the upgrade"
                rows={preview.interfaces}
                rowKey={(r) => r.id}
                columns={[
                  { key: 'kind', label: 'Kind', render: kindOf },
                  { key: 'addresses', label: 'Addresses', render: addressesOf },
                  { key: 'route', label: 'Default route', render: routesOf },
                  { key: 'mac_address', label: 'MAC' },
                ]}
              />
              <div className="actions">
                <ActionButton
                  label="Upgrade interfaces"
                  confirm="Upgrade this instance's interfaces? It cannot be undone."
                  run={async () => {
                    await post(`${path}/upgrade-interfaces`, {
                      config_id: preview.config_id,
                      dry_run: false,
                    });
                    setPreview(undefined);
                    await client.invalidateQueries();
                  }}
                />
              </div>
            </>
          ) : null}
        </>
      ) : null}
    </Section>
  );
}

/** The Network interfaces tab: the interfaces of a new-generation instance, or the upgrade. */
export function NetworkInterfaces({
  i,
  path,
  writable,
}: {
  i: Instance;
  path: string;
  writable: boolean;
}) {
  return i.interface_generation === 'compute' ? (
    <Interfaces i={i} path={path} writable={writable} />
  ) : (
    <Upgrade path={path} writable={writable} />
  );
}
