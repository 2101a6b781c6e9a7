import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Form, type FieldSpec } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { ErrorBox, Loading, Status, Tabs } from '../components/ui';
import { all, del, get, post } from '../lib/api';
import {
  regionHas,
  useImages,
  useOptions,
  usePolicies,
  useRegionList,
  useRegions,
  useTypes,
  useVpcSubnets,
} from '../lib/catalogue';
import { NetworkInterfaces } from './instance-interfaces';
import { Operations } from './instance-operations';
import { Analytics, Backups, Configs, Network, Storage, Summary } from './instance-tabs';

export interface Instance {
  id: number;
  label: string;
  status: string;
  region: string;
  type: string;
  image: string | null;
  ipv4: string[];
  ipv6: string | null;
  tags: string[];
  created: string;
  specs: Record<string, number>;
  backups: { enabled: boolean };
  interface_generation: 'legacy_config' | 'compute';
  maintenance_policy: string;
  disk_encryption: string;
  placement_group: { id: number; label: string } | null;
}

const statusCol = {
  key: 'status',
  label: 'Status',
  render: (r: { status: string }) => <Status value={r.status} />,
};

/** The instances list, with the API's filters. */
export function Instances() {
  const can = useCan();
  return (
    <>
      <div className="page-head">
        <h1>Instances</h1>
        {can.add('compute') ? (
          <Link className="btn" to="/console/instances/create">
            Create instance
          </Link>
        ) : null}
      </div>
      <ListView<Instance>
        path="/compute/instances"
        title="Your instances"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'region', label: 'Region' },
          { key: 'type', label: 'Type' },
          { key: 'image', label: 'Image' },
          { key: 'tags', label: 'Tag' },
        ]}
        orderBy={['label', 'created', 'region', 'type']}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/instances/${r.id}`}>{r.label}</Link>,
          },
          statusCol,
          { key: 'region', label: 'Region' },
          { key: 'type', label: 'Plan' },
          { key: 'ipv4', label: 'IPv4' },
          { key: 'image', label: 'Image' },
        ]}
      />
    </>
  );
}

/** The account's interface setting: the generations a new instance may have, and its default. */
const GENERATIONS: Record<string, { allowed: string[]; default: string }> = {
  legacy_config_only: { allowed: ['legacy_config'], default: 'legacy_config' },
  legacy_config_default_but_compute_allowed: {
    allowed: ['legacy_config', 'compute'],
    default: 'legacy_config',
  },
  compute_default_but_legacy_config_allowed: {
    allowed: ['compute', 'legacy_config'],
    default: 'compute',
  },
  compute_only: { allowed: ['compute'], default: 'compute' },
};
const GENERATION_LABEL: Record<string, string> = {
  legacy_config: 'Legacy (in profiles)',
  compute: 'New generation',
};

/** The account's settings, where the user may read them (restricted users need account access). */
export const useAccountSettings = () =>
  useQuery({
    queryKey: ['/account/settings'],
    retry: false,
    queryFn: () =>
      get<{ maintenance_policy: string; interfaces_for_new_computes: string }>('/account/settings'),
  });

/**
 * Create: region, plan, image or StackScript, root password and keys, the interface generation
 * (the account's setting as the default), VPC subnet, firewall, disk encryption, maintenance
 * policy, placement group. A field the chosen region cannot take is not offered.
 */
export function CreateInstance() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const regionList = useRegionList();
  const regions = useRegions();
  const types = useTypes();
  const images = useImages();
  const policies = usePolicies();
  const settings = useAccountSettings();
  const [region, setRegion] = useState<string>();
  const [generation, setGeneration] = useState<string>();
  const stackscripts = useOptions<{ id: number; label: string; username: string }>(
    '/compute/stackscripts',
    (s) => ({ value: String(s.id), label: `${s.label} (${s.username})` }),
    { filter: { mine: true } },
  );
  const firewalls = useOptions<{ id: number; label: string }>('/networking/firewalls', (f) => ({
    value: String(f.id),
    label: f.label,
  }));
  const groups = useQuery({
    queryKey: ['options', '/placement/groups', undefined],
    staleTime: 60_000,
    queryFn: () =>
      all<{ id: number; label: string; region: string; placement_group_type: string }>(
        '/placement/groups',
      ),
  });
  const vpcs = useVpcSubnets();
  const keys = useOptions<{ id: number; label: string; ssh_key: string }>(
    '/profile/sshkeys',
    (k) => ({
      value: k.ssh_key,
      label: k.label,
    }),
  );
  if (settings.isLoading) return <Loading />;
  const has = (capability: string) => regionHas(regionList, region, capability);
  const subnets = (vpcs.data ?? [])
    .filter((v) => v.region === region)
    .flatMap((v) =>
      v.subnets.map((s) => ({
        value: String(s.id),
        label: `${v.label} / ${s.label} (${s.ipv4})`,
      })),
    );
  // The generations the account allows (all of them when the user may not read the setting),
  // and only the legacy one in a region without compute interfaces.
  const setting = settings.data
    ? GENERATIONS[settings.data.interfaces_for_new_computes]
    : undefined;
  const allowed = (setting?.allowed ?? ['legacy_config', 'compute']).filter(
    (g) => g === 'legacy_config' || region === undefined || has('Compute Interfaces'),
  );
  const chosen = generation ?? setting?.default;
  const newGeneration = (allowed.includes(chosen ?? '') ? chosen : allowed[0]) === 'compute';
  const fields: FieldSpec[] = [
    { name: 'label', label: 'Label', help: '3 to 64 characters; a default is chosen when empty.' },
    { name: 'region', label: 'Region', type: 'select', options: regions, required: true },
    { name: 'type', label: 'Plan', type: 'select', options: types, required: true },
    { name: 'image', label: 'Image', type: 'select', options: images },
    {
      name: 'stackscript_id',
      label: 'StackScript (instead of a plain image)',
      type: 'select',
      options: stackscripts,
    },
    {
      name: 'stackscript_data',
      label: 'StackScript answers (JSON)',
      type: 'json',
      placeholder: '{"name": "value"}',
    },
    {
      name: 'root_pass',
      label: 'Root password',
      type: 'password',
      help: 'Required with an image; it must be strong.',
    },
    { name: 'authorized_keys', label: 'SSH keys (one a line)', type: 'list' },
    {
      name: 'interface_generation',
      label: 'Network interfaces',
      type: 'select',
      required: setting !== undefined,
      options: allowed.map((g) => ({ value: g, label: GENERATION_LABEL[g] ?? g })),
      ...(setting ? { initial: setting.default } : {}),
      help: settings.data
        ? `Your account's setting: ${settings.data.interfaces_for_new_computes.replace(/_/g, ' ')}.`
        : "Empty: the account's default.",
    },
    ...(has('VPCs')
      ? [
          {
            name: 'subnet',
            label: 'VPC subnet',
            type: 'select' as const,
            options: subnets,
            help: 'Adds a VPC interface beside the public one.',
          },
        ]
      : []),
    ...(region === undefined || has('Cloud Firewall')
      ? [
          {
            name: 'firewall_id',
            label: 'Firewall',
            type: 'select' as const,
            options: firewalls,
            ...(newGeneration ? { help: 'Protects the public and VPC interfaces.' } : {}),
          },
        ]
      : []),
    ...(has('Disk Encryption')
      ? [
          {
            name: 'disk_encryption',
            label: 'Encrypt the disks',
            type: 'checkbox' as const,
            initial: true,
          },
        ]
      : []),
    {
      name: 'maintenance_policy',
      label: 'Maintenance policy',
      type: 'select',
      options: policies,
      ...(settings.data ? { initial: settings.data.maintenance_policy } : {}),
      help: 'What happens to the instance during scheduled maintenance.',
    },
    ...(has('Placement Group')
      ? [
          {
            name: 'placement_group',
            label: 'Placement group',
            type: 'select' as const,
            options: (groups.data ?? [])
              .filter((g) => g.region === region)
              .map((g) => ({
                value: String(g.id),
                label: `${g.label} (${g.placement_group_type})`,
              })),
          },
        ]
      : []),
    { name: 'tags', label: 'Tags (comma separated)', type: 'list' },
    ...(region === undefined || has('Backups')
      ? [{ name: 'backups_enabled', label: 'Back up automatically', type: 'checkbox' as const }]
      : []),
    // Distributed sites have no private addresses (nor does the new generation's create).
    ...(newGeneration || regionList.find((r) => r.id === region)?.site_type === 'distributed'
      ? []
      : [
          {
            name: 'private_ip',
            label: 'Add a private IPv4 address',
            type: 'checkbox' as const,
          },
        ]),
  ];
  return (
    <>
      <h1>Create an instance</h1>
      <div className="card">
        {keys.length > 0 ? (
          <p className="help">
            Your SSH keys: {keys.map((k) => k.label).join(', ')} (paste the ones to add).
          </p>
        ) : null}
        <Form
          fields={fields}
          submitLabel="Create instance"
          onChange={(v) => {
            setRegion(typeof v.region === 'string' ? v.region : undefined);
            setGeneration(typeof v.interface_generation === 'string' ? v.interface_generation : '');
          }}
          onSubmit={async (v) => {
            const {
              subnet,
              stackscript_id,
              firewall_id,
              disk_encryption,
              placement_group,
              ...rest
            } = v;
            const body: Record<string, unknown> = { ...rest };
            if (stackscript_id !== undefined) body.stackscript_id = Number(stackscript_id);
            if (disk_encryption !== undefined)
              body.disk_encryption = disk_encryption ? 'enabled' : 'disabled';
            if (placement_group !== undefined)
              body.placement_group = { id: Number(placement_group) };
            const firewall = firewall_id === undefined ? {} : { firewall_id: Number(firewall_id) };
            if (v.interface_generation === 'compute') {
              // The instance's own interfaces: firewalls go on each one, not on the instance.
              body.interfaces = [
                { public: {}, ...firewall },
                ...(subnet === undefined
                  ? []
                  : [
                      {
                        vpc: {
                          subnet_id: Number(subnet),
                          ipv4: { addresses: [{ address: 'auto', primary: true }] },
                        },
                        ...firewall,
                      },
                    ]),
              ];
            } else {
              Object.assign(body, firewall);
              if (subnet !== undefined)
                body.interfaces = [
                  { purpose: 'public' },
                  { purpose: 'vpc', subnet_id: Number(subnet), ipv4: { nat_1_1: 'any' } },
                ];
            }
            const created = await post<Instance>('/compute/instances', body);
            await client.invalidateQueries();
            navigate(`/console/instances/${created.id}`);
          }}
        />
      </div>
    </>
  );
}

const TABS = [
  'Summary',
  'Analytics',
  'Network',
  'Network interfaces',
  'Storage',
  'Configurations',
  'Backups',
  'Settings',
] as const;

/** One instance: power, its parts, the long operations, live statistics. */
export function InstanceDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const [tab, setTab] = useState<(typeof TABS)[number]>('Summary');
  const path = `/compute/instances/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Instance>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const i = q.data;
  const writable = can.write('compute', i.id);
  const refresh = () => client.invalidateQueries();
  const act = (what: string, body?: unknown) => async () => {
    await post(`${path}/${what}`, body);
    await refresh();
  };
  return (
    <>
      <div className="page-head">
        <h1>{i.label}</h1>
        <span aria-live="polite" data-testid="instance-status">
          <Status value={i.status} />
        </span>
        {writable ? (
          <div className="head-actions">
            {i.status === 'offline' || i.status === 'stopped' ? (
              <ActionButton label="Power on" run={act('boot')} secondary />
            ) : null}
            {i.status === 'running' ? (
              <>
                <ActionButton label="Reboot" run={act('reboot')} secondary />
                <ActionButton label="Power off" run={act('shutdown')} secondary />
              </>
            ) : null}
            <ActionButton
              label="Delete"
              danger
              confirm={`Delete ${i.label}? Its disks and backups go too.`}
              run={async () => {
                await del(path);
                await refresh();
                navigate('/console/instances');
              }}
            />
          </div>
        ) : null}
      </div>
      <Tabs label="Instance" names={TABS} value={tab} onChange={setTab} />
      <div role="tabpanel" aria-label={tab}>
        {tab === 'Summary' ? <Summary i={i} path={path} /> : null}
        {tab === 'Analytics' ? <Analytics path={path} /> : null}
        {tab === 'Network' ? <Network path={path} writable={writable} /> : null}
        {tab === 'Network interfaces' ? (
          <NetworkInterfaces i={i} path={path} writable={writable} />
        ) : null}
        {tab === 'Storage' ? <Storage i={i} path={path} writable={writable} /> : null}
        {tab === 'Configurations' ? <Configs i={i} path={path} writable={writable} /> : null}
        {tab === 'Backups' ? <Backups i={i} path={path} writable={writable} /> : null}
        {tab === 'Settings' ? <Operations i={i} path={path} writable={writable} /> : null}
      </div>
    </>
  );
}
