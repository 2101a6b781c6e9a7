import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form, removeColumn } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status } from '../components/ui';
import { del, get, post } from '../lib/api';
import { useServes } from '../lib/openapi';

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
          removeColumn('Delete', (r) => `${path}/records/${r.id}`, refresh),
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
