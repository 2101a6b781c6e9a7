import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Table } from '../components/ui';
import { all, del, get, post, put } from '../lib/api';

interface Group {
  id: number;
  label: string;
  region: string;
  placement_group_type: string;
  placement_group_policy: string;
  is_compliant: boolean;
  members: { compute_id: number; is_compliant: boolean }[];
  migrations: { inbound: { compute_id: number }[]; outbound: { compute_id: number }[] } | null;
}

interface Member {
  id: number;
  label: string;
  status: string;
  region: string;
  placement_group: { id: number } | null;
}

const TYPES = [
  { value: 'anti_affinity:local', label: 'Anti-affinity: each instance on a host of its own' },
  { value: 'affinity:local', label: 'Affinity: every instance on the same host' },
];
const POLICIES = [
  { value: 'strict', label: 'Strict: refuse an instance that would break the group' },
  { value: 'flexible', label: 'Flexible: accept it, then move instances back into compliance' },
];
const typeWords = (t: string) => (t === 'affinity:local' ? 'affinity' : 'anti-affinity');
const compliance = (ok: boolean) => <Status value={ok ? 'compliant' : 'non_compliant'} />;

/** `/console/placement-groups`: the account's placement groups; create one. */
export function PlacementGroups() {
  const can = useCan();
  const client = useQueryClient();
  // Regions that take placement groups (their `Placement Group` capability).
  const regions = useQuery({
    queryKey: ['options', '/regions', 'placement'],
    staleTime: 60_000,
    queryFn: () => all<{ id: string; label: string; capabilities: string[] }>('/regions'),
  });
  const usable = (regions.data ?? [])
    .filter((r) => r.capabilities.includes('Placement Group'))
    .map((r) => ({ value: r.id, label: `${r.label} (${r.id})` }));
  return (
    <>
      <h1>Placement groups</h1>
      <p className="help">
        A placement group keeps its instances on one host (affinity) or each on a host of its own
        (anti-affinity), within one region.
      </p>
      <ListView<Group>
        path="/placement/groups"
        title="Placement groups"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'region', label: 'Region' },
          { key: 'is_compliant', label: 'Compliant', type: 'boolean' },
        ]}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/placement-groups/${r.id}`}>{r.label}</Link>,
          },
          { key: 'region', label: 'Region' },
          { key: 'type', label: 'Type', render: (r) => typeWords(r.placement_group_type) },
          { key: 'placement_group_policy', label: 'Policy' },
          { key: 'is_compliant', label: 'Compliance', render: (r) => compliance(r.is_compliant) },
          { key: 'members', label: 'Instances', render: (r) => r.members.length },
        ]}
      />
      {can.add('compute') ? (
        <Disclosure label="Create a placement group">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              {
                name: 'region',
                label: 'Region (with placement groups)',
                type: 'select',
                options: usable,
                required: true,
              },
              {
                name: 'placement_group_type',
                label: 'Type',
                type: 'select',
                options: TYPES,
                required: true,
                initial: 'anti_affinity:local',
              },
              {
                name: 'placement_group_policy',
                label: 'Policy',
                type: 'select',
                options: POLICIES,
                required: true,
                initial: 'strict',
              },
            ]}
            submitLabel="Create placement group"
            onSubmit={async (v) => {
              await post('/placement/groups', v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

/** One placement group: its instances, assign and unassign, rename, delete. */
export function PlacementGroupDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const path = `/placement/groups/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Group>(path) });
  const region = q.data?.region;
  // The account's instances of the group's region: the members' labels, and those to assign.
  const instances = useQuery({
    queryKey: ['/compute/instances', { region }],
    enabled: region !== undefined,
    queryFn: () => all<Member>('/compute/instances', { region }),
  });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const g = q.data;
  const writable = can.add('compute');
  const refresh = () => client.invalidateQueries();
  const byId = new Map((instances.data ?? []).map((i) => [i.id, i]));
  const migrating = new Set([
    ...(g.migrations?.inbound ?? []).map((m) => m.compute_id),
    ...(g.migrations?.outbound ?? []).map((m) => m.compute_id),
  ]);
  const assignable = (instances.data ?? [])
    .filter((i) => i.placement_group === null && can.write('compute', i.id))
    .map((i) => ({ value: String(i.id), label: `${i.label} (${i.id})` }));
  return (
    <>
      <div className="page-head">
        <h1>{g.label}</h1>
        <span aria-live="polite" data-testid="placement-compliance">
          {compliance(g.is_compliant)}
        </span>
        {writable ? (
          <div className="head-actions">
            <ActionButton
              label="Delete"
              danger
              confirm={`Delete placement group ${g.label}?`}
              run={async () => {
                await del(path);
                await refresh();
                navigate('/console/placement-groups');
              }}
            />
          </div>
        ) : null}
      </div>
      <Section title="Placement group">
        <Details
          value={{
            region: g.region,
            type: `${typeWords(g.placement_group_type)} (${g.placement_group_type})`,
            policy: g.placement_group_policy,
            compliant: g.is_compliant,
            id: g.id,
          }}
        />
      </Section>
      <Section title="Instances">
        <Table
          caption={`Instances of ${g.label}`}
          rows={g.members}
          rowKey={(m) => m.compute_id}
          columns={[
            {
              key: 'label',
              label: 'Instance',
              render: (m) => (
                <Link to={`/console/instances/${m.compute_id}`}>
                  {byId.get(m.compute_id)?.label ?? `Instance ${m.compute_id}`}
                </Link>
              ),
            },
            {
              key: 'status',
              label: 'Status',
              render: (m) => <Status value={byId.get(m.compute_id)?.status} />,
            },
            {
              key: 'is_compliant',
              label: 'Compliance',
              render: (m) => (
                <>
                  {compliance(m.is_compliant)}
                  {migrating.has(m.compute_id) ? ' migrating' : ''}
                </>
              ),
            },
            ...(writable
              ? [
                  {
                    key: 'x',
                    label: 'Unassign',
                    render: (m: { compute_id: number }) =>
                      can.write('compute', m.compute_id) ? (
                        <ActionButton
                          label={`Unassign ${byId.get(m.compute_id)?.label ?? m.compute_id}`}
                          secondary
                          run={async () => {
                            await post(`${path}/unassign`, { computes: [m.compute_id] });
                            await refresh();
                          }}
                        />
                      ) : null,
                  },
                ]
              : []),
          ]}
        />
        {writable ? (
          <Disclosure label="Assign an instance">
            <Form
              fields={[
                {
                  name: 'compute',
                  label: `Instance (in ${g.region}, in no group)`,
                  type: 'select',
                  options: assignable,
                  required: true,
                },
                ...(g.placement_group_policy === 'flexible'
                  ? [
                      {
                        name: 'compliant_only',
                        label: 'Only if the group stays compliant',
                        type: 'checkbox' as const,
                      },
                    ]
                  : []),
              ]}
              submitLabel="Assign"
              onSubmit={async (v) => {
                await post(`${path}/assign`, {
                  computes: [Number(v.compute)],
                  ...(v.compliant_only === true ? { compliant_only: true } : {}),
                });
                await refresh();
              }}
            />
          </Disclosure>
        ) : null}
      </Section>
      {writable ? (
        <Disclosure label="Rename">
          <Form
            fields={[{ name: 'label', label: 'Label', required: true, initial: g.label }]}
            submitLabel="Save"
            onSubmit={async (v) => {
              await put(path, v);
              await refresh();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}
