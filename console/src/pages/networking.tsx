import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form, removeColumn } from '../components/form';
import { useCan } from '../components/layout';
import { Locks } from '../components/locks';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Table } from '../components/ui';
import { del, get, type Page, post } from '../lib/api';
import { useRegions } from '../lib/catalogue';

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
              ? [removeColumn<{ id: number }>('Delete', (r) => `${path}/subnets/${r.id}`, refresh)]
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
                removeColumn<{ id: number }>(
                  'Remove',
                  (r) => `${path}/nodes/${r.id}`,
                  () => client.invalidateQueries(),
                ),
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
      <Locks
        type="nodebalancer"
        id={nb.id}
        label={nb.label}
        locks={(nb as { locks?: string[] }).locks}
      />
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
