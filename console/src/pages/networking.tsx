import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Table } from '../components/ui';
import { del, get, type Page, post, put } from '../lib/api';
import { useOptions, useRegions } from '../lib/catalogue';
import { useServes } from '../lib/openapi';

interface Firewall {
  id: number;
  label: string;
  status: string;
  tags: string[];
  created: string;
  updated: string;
}

export function Firewalls() {
  const can = useCan();
  const client = useQueryClient();
  return (
    <>
      <h1>Firewalls</h1>
      <ListView<Firewall>
        path="/networking/firewalls"
        title="Cloud firewalls"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'status', label: 'Status' },
          { key: 'tags', label: 'Tag' },
        ]}
        orderBy={['label', 'created']}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/firewalls/${r.id}`}>{r.label}</Link>,
          },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'created', label: 'Created' },
        ]}
      />
      {can.add('firewall') ? (
        <Disclosure label="Create a firewall">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              {
                name: 'inbound_policy',
                label: 'Inbound policy',
                type: 'select',
                initial: 'DROP',
                options: POLICIES,
              },
              {
                name: 'outbound_policy',
                label: 'Outbound policy',
                type: 'select',
                initial: 'ACCEPT',
                options: POLICIES,
              },
            ]}
            submitLabel="Create firewall"
            onSubmit={async (v) => {
              await post('/networking/firewalls', {
                label: v.label,
                rules: {
                  inbound_policy: v.inbound_policy ?? 'DROP',
                  outbound_policy: v.outbound_policy ?? 'ACCEPT',
                  inbound: [],
                  outbound: [],
                },
              });
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

const POLICIES = [
  { value: 'ACCEPT', label: 'ACCEPT' },
  { value: 'DROP', label: 'DROP' },
];
const PROTOCOLS = ['TCP', 'UDP', 'ICMP', 'IPENCAP'];

interface Rule {
  action: string;
  protocol: string;
  ports?: string | null;
  label?: string;
  description?: string;
  addresses: { ipv4?: string[]; ipv6?: string[] };
}
interface Rules {
  inbound: Rule[];
  outbound: Rule[];
  inbound_policy: string;
  outbound_policy: string;
}

/** The rule editor: each direction's rules as editable rows, saved together (PUT …/rules). */
function RulesEditor({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  const q = useQuery({ queryKey: [`${path}/rules`], queryFn: () => get<Rules>(`${path}/rules`) });
  const [draft, setDraft] = useState<Rules>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (q.data && !draft) setDraft(q.data);
  }, [q.data, draft]);
  if (q.error) return <ErrorBox error={q.error} />;
  if (!draft) return <Loading />;
  const change = (dir: 'inbound' | 'outbound', i: number, patch: Partial<Rule>) => {
    setSaved(false);
    setDraft({ ...draft, [dir]: draft[dir].map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  };
  const list = (s: string) => s.split(/[\s,]+/).filter(Boolean);
  return (
    <Section title="Rules">
      <ErrorBox error={error} />
      {(['inbound', 'outbound'] as const).map((dir) => (
        <div key={dir} className="rules-editor">
          <h3>{dir === 'inbound' ? 'Inbound' : 'Outbound'} rules</h3>
          <label htmlFor={`${dir}-policy`}>Default {dir} policy</label>
          <select
            id={`${dir}-policy`}
            disabled={!writable}
            value={draft[`${dir}_policy`]}
            onChange={(e) => setDraft({ ...draft, [`${dir}_policy`]: e.target.value })}
          >
            {POLICIES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{dir} rules</caption>
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Action</th>
                  <th scope="col">Protocol</th>
                  <th scope="col">Ports</th>
                  <th scope="col">IPv4 sources</th>
                  <th scope="col">IPv6 sources</th>
                  {writable ? <th scope="col">Remove</th> : null}
                </tr>
              </thead>
              <tbody>
                {draft[dir].map((r, i) => {
                  const n = `${dir} rule ${i + 1}`;
                  return (
                    // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; the order is theirs.
                    <tr key={i}>
                      <td>
                        <input
                          aria-label={`${n} label`}
                          disabled={!writable}
                          value={r.label ?? ''}
                          onChange={(e) => change(dir, i, { label: e.target.value })}
                        />
                      </td>
                      <td>
                        <select
                          aria-label={`${n} action`}
                          disabled={!writable}
                          value={r.action}
                          onChange={(e) => change(dir, i, { action: e.target.value })}
                        >
                          {POLICIES.map((p) => (
                            <option key={p.value} value={p.value}>
                              {p.label}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <select
                          aria-label={`${n} protocol`}
                          disabled={!writable}
                          value={r.protocol}
                          onChange={(e) => change(dir, i, { protocol: e.target.value })}
                        >
                          {PROTOCOLS.map((p) => (
                            <option key={p} value={p}>
                              {p}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <input
                          aria-label={`${n} ports`}
                          disabled={!writable}
                          value={r.ports ?? ''}
                          onChange={(e) => change(dir, i, { ports: e.target.value })}
                        />
                      </td>
                      <td>
                        <input
                          aria-label={`${n} IPv4 addresses`}
                          disabled={!writable}
                          value={(r.addresses.ipv4 ?? []).join(', ')}
                          onChange={(e) =>
                            change(dir, i, {
                              addresses: { ...r.addresses, ipv4: list(e.target.value) },
                            })
                          }
                        />
                      </td>
                      <td>
                        <input
                          aria-label={`${n} IPv6 addresses`}
                          disabled={!writable}
                          value={(r.addresses.ipv6 ?? []).join(', ')}
                          onChange={(e) =>
                            change(dir, i, {
                              addresses: { ...r.addresses, ipv6: list(e.target.value) },
                            })
                          }
                        />
                      </td>
                      {writable ? (
                        <td>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Remove ${n}`}
                            onClick={() =>
                              setDraft({ ...draft, [dir]: draft[dir].filter((_, j) => j !== i) })
                            }
                          >
                            Remove
                          </button>
                        </td>
                      ) : null}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {writable ? (
            <div className="actions">
              <button
                type="button"
                className="secondary"
                onClick={() =>
                  setDraft({
                    ...draft,
                    [dir]: [
                      ...draft[dir],
                      {
                        action: 'ACCEPT',
                        protocol: 'TCP',
                        ports: '',
                        label: '',
                        addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
                      },
                    ],
                  })
                }
              >
                Add an {dir} rule
              </button>
            </div>
          ) : null}
        </div>
      ))}
      {writable ? (
        <div className="actions">
          <button
            type="button"
            onClick={async () => {
              setError(undefined);
              const clean = (r: Rule): Rule => ({
                action: r.action,
                protocol: r.protocol,
                ...(r.ports ? { ports: r.ports } : {}),
                ...(r.label ? { label: r.label } : {}),
                ...(r.description ? { description: r.description } : {}),
                addresses: r.addresses,
              });
              try {
                const next = await put<Rules>(`${path}/rules`, {
                  inbound_policy: draft.inbound_policy,
                  outbound_policy: draft.outbound_policy,
                  inbound: draft.inbound.map(clean),
                  outbound: draft.outbound.map(clean),
                });
                setDraft(next);
                setSaved(true);
                await client.invalidateQueries();
              } catch (err) {
                setError(err);
              }
            }}
          >
            Save rules
          </button>
          {saved ? (
            <span className="ok-text" role="status">
              Rules saved.
            </span>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}

export function FirewallDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const path = `/networking/firewalls/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Firewall>(path) });
  const instances = useOptions<{ id: number; label: string }>('/compute/instances', (i) => ({
    value: String(i.id),
    label: i.label,
  }));
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const f = q.data;
  const writable = can.write('firewall', f.id);
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{f.label}</h1>
        <Status value={f.status} />
        {writable ? (
          <div className="head-actions">
            <ActionButton
              label={f.status === 'enabled' ? 'Disable' : 'Enable'}
              secondary
              run={async () => {
                await put(path, { status: f.status === 'enabled' ? 'disabled' : 'enabled' });
                await refresh();
              }}
            />
            <ActionButton
              label="Delete"
              danger
              confirm={`Delete ${f.label}?`}
              run={async () => {
                await del(path);
                await refresh();
                navigate('/console/firewalls');
              }}
            />
          </div>
        ) : null}
      </div>
      <RulesEditor path={path} writable={writable} />
      <ListView<{ id: number; entity: { id: number; label: string; type: string } }>
        path={`${path}/devices`}
        title="Devices"
        rowKey={(r) => r.id}
        columns={[
          { key: 'type', label: 'Type', render: (r) => r.entity.type },
          { key: 'label', label: 'Label', render: (r) => r.entity.label },
          ...(writable
            ? [
                {
                  key: 'x',
                  label: 'Remove',
                  render: (r: { id: number }) => (
                    <ActionButton
                      label="Remove"
                      secondary
                      run={async () => {
                        await del(`${path}/devices/${r.id}`);
                        await refresh();
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {writable ? (
        <Disclosure label="Add an instance">
          <Form
            fields={[
              { name: 'id', label: 'Instance', type: 'select', options: instances, required: true },
            ]}
            submitLabel="Add device"
            onSubmit={async (v) => {
              await post(`${path}/devices`, { type: 'compute', id: Number(v.id) });
              await refresh();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

interface Vpc {
  id: number;
  label: string;
  description: string;
  region: string;
  subnets: { id: number; label: string; ipv4: string; computes: { id: number }[] }[];
  created: string;
}

export function Vpcs() {
  const can = useCan();
  const client = useQueryClient();
  const regions = useRegions();
  return (
    <>
      <h1>VPCs</h1>
      <ListView<Vpc>
        path="/vpcs"
        title="Virtual private clouds"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'region', label: 'Region' },
        ]}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/vpcs/${r.id}`}>{r.label}</Link>,
          },
          { key: 'region', label: 'Region' },
          { key: 'subnets', label: 'Subnets', render: (r) => r.subnets.length },
          { key: 'created', label: 'Created' },
        ]}
      />
      {can.add('vpc') ? (
        <Disclosure label="Create a VPC">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              {
                name: 'region',
                label: 'Region (with the VPCs capability)',
                type: 'select',
                options: regions,
                required: true,
              },
              { name: 'description', label: 'Description' },
              { name: 'subnet_label', label: 'First subnet label' },
              { name: 'subnet_ipv4', label: 'First subnet range', placeholder: '10.0.0.0/24' },
            ]}
            submitLabel="Create VPC"
            onSubmit={async (v) => {
              const { subnet_label, subnet_ipv4, ...body } = v;
              await post('/vpcs', {
                ...body,
                ...(subnet_label ? { subnets: [{ label: subnet_label, ipv4: subnet_ipv4 }] } : {}),
              });
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

export function VpcDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const path = `/vpcs/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Vpc>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const v = q.data;
  const writable = can.write('vpc', v.id);
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{v.label}</h1>
        {writable ? (
          <ActionButton
            label="Delete"
            danger
            confirm={`Delete ${v.label} and its subnets?`}
            run={async () => {
              await del(path);
              await refresh();
              navigate('/console/vpcs');
            }}
          />
        ) : null}
      </div>
      <Section title="VPC">
        <Details value={v as unknown as Record<string, unknown>} omit={['subnets', 'label']} />
      </Section>
      <Section title="Subnets">
        <Table
          caption="Subnets"
          rows={v.subnets}
          rowKey={(r) => r.id}
          columns={[
            { key: 'label', label: 'Label' },
            { key: 'ipv4', label: 'IPv4 range' },
            {
              key: 'computes',
              label: 'Instances',
              render: (r) => r.computes.map((c) => c.id).join(', ') || '—',
            },
            ...(writable
              ? [
                  {
                    key: 'x',
                    label: 'Delete',
                    render: (r: { id: number }) => (
                      <ActionButton
                        label="Delete"
                        secondary
                        run={async () => {
                          await del(`${path}/subnets/${r.id}`);
                          await refresh();
                        }}
                      />
                    ),
                  },
                ]
              : []),
          ]}
        />
        {writable ? (
          <Disclosure label="Add a subnet">
            <Form
              fields={[
                { name: 'label', label: 'Label', required: true },
                { name: 'ipv4', label: 'IPv4 range', required: true, placeholder: '10.0.1.0/24' },
              ]}
              submitLabel="Add subnet"
              onSubmit={async (b) => {
                await post(`${path}/subnets`, b);
                await refresh();
              }}
            />
          </Disclosure>
        ) : null}
      </Section>
      <ListView<{ address: string; compute_id: number; subnet_id: number; active: boolean }>
        path={`${path}/ips`}
        title="Addresses in the VPC"
        columns={[
          { key: 'address', label: 'Address' },
          { key: 'compute_id', label: 'Instance' },
          { key: 'subnet_id', label: 'Subnet' },
          { key: 'active', label: 'Active' },
        ]}
      />
    </>
  );
}

interface NodeBalancer {
  id: number;
  label: string;
  region: string;
  hostname: string;
  ipv4: string;
  client_conn_throttle: number;
  tags: string[];
}

export function NodeBalancers() {
  const can = useCan();
  const client = useQueryClient();
  const regions = useRegions();
  return (
    <>
      <h1>NodeBalancers</h1>
      <ListView<NodeBalancer>
        path="/nodebalancers"
        title="NodeBalancers"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'region', label: 'Region' },
        ]}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/nodebalancers/${r.id}`}>{r.label}</Link>,
          },
          { key: 'region', label: 'Region' },
          { key: 'ipv4', label: 'IPv4' },
          { key: 'hostname', label: 'Host name' },
        ]}
      />
      {can.add('nodebalancer') ? (
        <Disclosure label="Create a NodeBalancer">
          <Form
            fields={[
              { name: 'label', label: 'Label' },
              { name: 'region', label: 'Region', type: 'select', options: regions, required: true },
            ]}
            submitLabel="Create NodeBalancer"
            onSubmit={async (v) => {
              await post('/nodebalancers', v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

interface NbConfig {
  id: number;
  port: number;
  protocol: string;
  algorithm: string;
  check: string;
  nodes_status: { up: number; down: number };
}

function NbNodes({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  return (
    <>
      <ListView<{
        id: number;
        label: string;
        address: string;
        status: string;
        weight: number;
        mode: string;
      }>
        path={`${path}/nodes`}
        title="Nodes"
        rowKey={(r) => r.id}
        columns={[
          { key: 'label', label: 'Label' },
          { key: 'address', label: 'Address' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'weight', label: 'Weight' },
          { key: 'mode', label: 'Mode' },
          ...(writable
            ? [
                {
                  key: 'x',
                  label: 'Remove',
                  render: (r: { id: number }) => (
                    <ActionButton
                      label="Remove"
                      secondary
                      run={async () => {
                        await del(`${path}/nodes/${r.id}`);
                        await client.invalidateQueries();
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {writable ? (
        <Disclosure label="Add a node">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              {
                name: 'address',
                label: 'Private address and port',
                required: true,
                placeholder: '192.168.128.5:80',
              },
              { name: 'weight', label: 'Weight', type: 'number', initial: 100 },
              {
                name: 'mode',
                label: 'Mode',
                type: 'select',
                options: ['accept', 'reject', 'drain', 'backup'].map((m) => ({
                  value: m,
                  label: m,
                })),
              },
            ]}
            submitLabel="Add node"
            onSubmit={async (v) => {
              await post(`${path}/nodes`, v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

export function NodeBalancerDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const path = `/nodebalancers/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<NodeBalancer>(path) });
  const configs = useQuery({
    queryKey: [`${path}/configs`],
    queryFn: () => get<Page<NbConfig>>(`${path}/configs`),
  });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const nb = q.data;
  const writable = can.write('nodebalancer', nb.id);
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{nb.label}</h1>
        {writable ? (
          <ActionButton
            label="Delete"
            danger
            confirm={`Delete ${nb.label}?`}
            run={async () => {
              await del(path);
              await refresh();
              navigate('/console/nodebalancers');
            }}
          />
        ) : null}
      </div>
      <Section title="NodeBalancer">
        <Details value={nb as unknown as Record<string, unknown>} omit={['label']} />
      </Section>
      <ErrorBox error={configs.error} />
      {(configs.data?.data ?? []).map((c) => (
        <Section
          key={c.id}
          title={`Port ${c.port} (${c.protocol})`}
          actions={
            writable ? (
              <ActionButton
                label="Delete configuration"
                secondary
                confirm={`Delete the configuration of port ${c.port}?`}
                run={async () => {
                  await del(`${path}/configs/${c.id}`);
                  await refresh();
                }}
              />
            ) : null
          }
        >
          <Details value={c as unknown as Record<string, unknown>} />
          <NbNodes path={`${path}/configs/${c.id}`} writable={writable} />
        </Section>
      ))}
      {writable ? (
        <Disclosure label="Add a configuration">
          <Form
            fields={[
              { name: 'port', label: 'Port', type: 'number', required: true, initial: 80 },
              {
                name: 'protocol',
                label: 'Protocol',
                type: 'select',
                options: ['http', 'https', 'tcp'].map((p) => ({ value: p, label: p })),
              },
              {
                name: 'algorithm',
                label: 'Algorithm',
                type: 'select',
                options: ['roundrobin', 'leastconn', 'source'].map((p) => ({ value: p, label: p })),
              },
              {
                name: 'check',
                label: 'Health check',
                type: 'select',
                options: ['none', 'connection', 'http', 'http_body'].map((p) => ({
                  value: p,
                  label: p,
                })),
              },
            ]}
            submitLabel="Add configuration"
            onSubmit={async (v) => {
              await post(`${path}/configs`, v);
              await refresh();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

interface Domain {
  id: number;
  domain: string;
  type: string;
  status: string;
  soa_email: string;
  tags: string[];
}

/** Domains: shown once this server serves `/domains` (its OpenAPI document lists it). */
export function Domains() {
  const serves = useServes();
  const client = useQueryClient();
  const can = useCan();
  if (!serves('/domains')) return <p>This server does not serve the domains API yet.</p>;
  return (
    <>
      <h1>Domains</h1>
      <ListView<Domain>
        path="/domains"
        title="Domains"
        rowKey={(r) => r.id}
        filters={[
          { key: 'domain', label: 'Domain' },
          { key: 'type', label: 'Type' },
        ]}
        columns={[
          {
            key: 'domain',
            label: 'Domain',
            render: (r) => <Link to={`/console/domains/${r.id}`}>{r.domain}</Link>,
          },
          { key: 'type', label: 'Type' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'soa_email', label: 'SOA email' },
        ]}
      />
      {can.add('domain') ? (
        <Disclosure label="Add a domain">
          <Form
            fields={[
              { name: 'domain', label: 'Domain', required: true },
              {
                name: 'type',
                label: 'Type',
                type: 'select',
                required: true,
                initial: 'master',
                options: [
                  { value: 'master', label: 'master' },
                  { value: 'slave', label: 'slave' },
                ],
              },
              { name: 'soa_email', label: 'SOA email', type: 'email' },
              { name: 'master_ips', label: 'Master IPs (slave)', type: 'list' },
            ]}
            submitLabel="Add domain"
            onSubmit={async (v) => {
              await post('/domains', v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

export function DomainDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const path = `/domains/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Domain>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{q.data.domain}</h1>
        <ActionButton
          label="Delete"
          danger
          confirm={`Delete ${q.data.domain} and its records?`}
          run={async () => {
            await del(path);
            await refresh();
            navigate('/console/domains');
          }}
        />
      </div>
      <Section title="Domain">
        <Details value={q.data as unknown as Record<string, unknown>} />
      </Section>
      <ListView<{
        id: number;
        type: string;
        name: string;
        target: string;
        ttl_sec: number;
        priority: number;
      }>
        path={`${path}/records`}
        title="Records"
        rowKey={(r) => r.id}
        filters={[
          { key: 'type', label: 'Type' },
          { key: 'name', label: 'Name' },
        ]}
        columns={[
          { key: 'type', label: 'Type' },
          { key: 'name', label: 'Name' },
          { key: 'target', label: 'Target' },
          { key: 'ttl_sec', label: 'TTL' },
          {
            key: 'x',
            label: 'Delete',
            render: (r) => (
              <ActionButton
                label="Delete"
                secondary
                run={async () => {
                  await del(`${path}/records/${r.id}`);
                  await refresh();
                }}
              />
            ),
          },
        ]}
      />
      <Disclosure label="Add a record">
        <Form
          fields={[
            {
              name: 'type',
              label: 'Type',
              type: 'select',
              required: true,
              options: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'NS', 'CAA'].map((t) => ({
                value: t,
                label: t,
              })),
            },
            { name: 'name', label: 'Name' },
            { name: 'target', label: 'Target', required: true },
            { name: 'ttl_sec', label: 'TTL (seconds)', type: 'number' },
            { name: 'priority', label: 'Priority (MX, SRV)', type: 'number' },
          ]}
          submitLabel="Add record"
          onSubmit={async (v) => {
            await post(`${path}/records`, v);
            await refresh();
          }}
        />
      </Disclosure>
    </>
  );
}
