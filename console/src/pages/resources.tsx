import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { Locks } from '../components/locks';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Table, Tabs } from '../components/ui';
import { del, get, type Page, post, put } from '../lib/api';
import { regionHas, useOptions, useRegionList, useRegions } from '../lib/catalogue';

interface Volume {
  id: number;
  label: string;
  status: string;
  size: number;
  region: string;
  compute_id: number | null;
  compute_label: string | null;
  filesystem_path: string;
  tags: string[];
  created: string;
}

const useInstances = (region?: string) =>
  useOptions<{ id: number; label: string; region: string }>(
    '/compute/instances',
    (i) => ({ value: String(i.id), label: `${i.label} (${i.region})` }),
    region ? { filter: { region } } : {},
  );

export function Volumes() {
  const can = useCan();
  const client = useQueryClient();
  const regions = useRegions();
  const regionList = useRegionList();
  const [region, setRegion] = useState<string>();
  const instances = useInstances();
  return (
    <>
      <h1>Volumes</h1>
      <ListView<Volume>
        path="/volumes"
        title="Block storage volumes"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'region', label: 'Region' },
          { key: 'tags', label: 'Tag' },
        ]}
        orderBy={['label', 'size', 'created']}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/volumes/${r.id}`}>{r.label}</Link>,
          },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'size', label: 'Size (GB)' },
          { key: 'region', label: 'Region' },
          { key: 'compute_label', label: 'Attached to' },
        ]}
      />
      {can.add('volume') ? (
        <Disclosure label="Create a volume">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              { name: 'size', label: 'Size (GB)', type: 'number', initial: 20 },
              {
                name: 'region',
                label: 'Region (or attach at once)',
                type: 'select',
                options: regions,
              },
              { name: 'compute_id', label: 'Attach to', type: 'select', options: instances },
              ...(regionHas(regionList, region, 'Block Storage Encryption')
                ? [
                    {
                      name: 'encryption',
                      label: 'Encrypt the volume',
                      type: 'checkbox' as const,
                      help: 'Fixed for the life of the volume.',
                    },
                  ]
                : []),
              { name: 'tags', label: 'Tags', type: 'list' },
            ]}
            submitLabel="Create volume"
            onChange={(v) => setRegion(typeof v.region === 'string' ? v.region : undefined)}
            onSubmit={async (v) => {
              await post('/volumes', {
                ...v,
                ...(v.compute_id ? { compute_id: Number(v.compute_id) } : {}),
                ...(v.encryption !== undefined
                  ? { encryption: v.encryption ? 'enabled' : 'disabled' }
                  : {}),
              });
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

export function VolumeDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const path = `/volumes/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Volume>(path) });
  const instances = useInstances(q.data?.region);
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const v = q.data;
  const writable = can.write('volume', v.id);
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{v.label}</h1>
        <span aria-live="polite" data-testid="volume-status">
          <Status value={v.status} />
        </span>
      </div>
      <Section title="Volume">
        <Details value={v as unknown as Record<string, unknown>} omit={['label']} />
      </Section>
      <Locks type="volume" id={v.id} label={v.label} locks={(v as { locks?: string[] }).locks} />
      {writable ? (
        <Section title="Actions">
          {v.status !== 'active' ? (
            <p className="help" role="status">
              The volume is {v.status}: its actions open when it is active.
            </p>
          ) : v.compute_id === null ? (
            <Form
              fields={[
                {
                  name: 'compute_id',
                  label: 'Attach to instance',
                  type: 'select',
                  options: instances,
                  required: true,
                },
              ]}
              submitLabel="Attach"
              onSubmit={async (b) => {
                await post(`${path}/attach`, { compute_id: Number(b.compute_id) });
                await refresh();
              }}
            />
          ) : (
            <ActionButton
              label={`Detach from ${v.compute_label ?? v.compute_id}`}
              secondary
              run={async () => {
                await post(`${path}/detach`);
                await refresh();
              }}
            />
          )}
          <Disclosure label="Resize">
            <Form
              fields={[{ name: 'size', label: 'New size (GB)', type: 'number', required: true }]}
              submitLabel="Resize"
              onSubmit={async (b) => {
                await post(`${path}/resize`, b);
                await refresh();
              }}
            />
          </Disclosure>
          <Disclosure label="Clone">
            <Form
              fields={[{ name: 'label', label: 'Label of the clone', required: true }]}
              submitLabel="Clone"
              onSubmit={async (b) => {
                await post(`${path}/clone`, b);
                await refresh();
              }}
            />
          </Disclosure>
          <Disclosure label="Label and tags">
            <Form
              fields={[
                { name: 'label', label: 'Label', initial: v.label },
                { name: 'tags', label: 'Tags', type: 'list', initial: v.tags.join(', ') },
              ]}
              submitLabel="Save"
              onSubmit={async (b) => {
                await put(path, { tags: [], ...b });
                await refresh();
              }}
            />
          </Disclosure>
          <div className="actions">
            <ActionButton
              label="Delete volume"
              danger
              confirm={`Delete ${v.label}?`}
              run={async () => {
                await del(path);
                await refresh();
                navigate('/console/volumes');
              }}
            />
          </div>
        </Section>
      ) : null}
    </>
  );
}

interface Image {
  id: string;
  label: string;
  description: string | null;
  status: string;
  size: number;
  is_public: boolean;
  vendor: string | null;
  created: string;
  type: string;
  regions: { region: string; status: string }[] | null;
  total_size?: number;
}

/** Gzip in the browser when the file is not gzipped yet (the upload URL takes gzip). */
async function gzipped(file: File): Promise<Blob> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (head[0] === 0x1f && head[1] === 0x8b) return file;
  return new Response(file.stream().pipeThrough(new CompressionStream('gzip'))).blob();
}

export function Images() {
  const can = useCan();
  const client = useQueryClient();
  const regions = useRegions();
  const [uploaded, setUploaded] = useState<string>();
  return (
    <>
      <h1>Images</h1>
      <ListView<Image>
        path="/images"
        title="Images"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'is_public', label: 'Public', type: 'boolean' },
          { key: 'type', label: 'Type (manual, automatic, shared)' },
          { key: 'vendor', label: 'Vendor' },
        ]}
        orderBy={['label', 'created', 'size']}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) =>
              r.id.startsWith('private/') ? (
                <Link to={`/console/images/${r.id}`}>{r.label}</Link>
              ) : (
                r.label
              ),
          },
          { key: 'id', label: 'Id' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'size', label: 'Size (MB)' },
          {
            key: 'regions',
            label: 'Regions',
            render: (r) =>
              (r.regions ?? []).map((x) => `${x.region} (${x.status})`).join(', ') || null,
          },
          { key: 'total_size', label: 'All replicas (MB)' },
          { key: 'is_public', label: 'Public' },
          {
            key: 'x',
            label: 'Actions',
            // Public images and the shared images of a share group are not the account's.
            render: (r) =>
              r.is_public || r.type === 'shared' ? null : (
                <ActionButton
                  label="Delete"
                  secondary
                  confirm={`Delete image ${r.label}?`}
                  run={async () => {
                    await del(`/images/${r.id}`);
                    await client.invalidateQueries();
                  }}
                />
              ),
          },
        ]}
      />
      <Disclosure label="Replicate an image to regions">
        <Form
          fields={[
            { name: 'image', label: 'Image id (private/…)', required: true },
            {
              name: 'regions',
              label: 'Regions, comma-separated (the list replaces the current one)',
              required: true,
            },
          ]}
          submitLabel="Set regions"
          onSubmit={async (v) => {
            const regions = String(v.regions ?? '')
              .split(',')
              .map((x) => x.trim())
              .filter((x) => x !== '');
            await post(`/images/${String(v.image)}/regions`, { regions });
            await client.invalidateQueries();
          }}
        />
      </Disclosure>
      {can.add('image') ? (
        <>
          <Disclosure label="Capture an image from a disk">
            <Form
              fields={[
                { name: 'disk_id', label: 'Disk id', type: 'number', required: true },
                { name: 'label', label: 'Label' },
                { name: 'description', label: 'Description' },
              ]}
              submitLabel="Capture image"
              onSubmit={async (v) => {
                await post('/images', v);
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
          <Disclosure label="Upload an image">
            <Form
              fields={[
                { name: 'label', label: 'Label', required: true },
                {
                  name: 'region',
                  label: 'Region',
                  type: 'select',
                  options: regions,
                  required: true,
                },
                { name: 'description', label: 'Description' },
                {
                  name: 'file',
                  label: 'Raw disk image (.img, or .img.gz)',
                  type: 'file',
                  required: true,
                },
              ]}
              submitLabel="Upload image"
              onSubmit={async (v) => {
                const { file, ...body } = v;
                if (!(file instanceof File)) throw new Error('Choose a file to upload.');
                const r = await post<{ image: Image; upload_to: string }>('/images/upload', body);
                const res = await fetch(r.upload_to, {
                  method: 'PUT',
                  body: await gzipped(file),
                  headers: { 'content-type': 'application/octet-stream' },
                });
                if (!res.ok)
                  throw new Error(`The upload failed: ${res.status} ${await res.text()}`);
                setUploaded(r.image.id);
                await client.invalidateQueries();
              }}
            />
            {uploaded ? <p role="status">Uploaded as {uploaded}.</p> : null}
          </Disclosure>
        </>
      ) : null}
    </>
  );
}

interface StackScript {
  id: number;
  label: string;
  description: string;
  images: string[];
  is_public: boolean;
  mine: boolean;
  script: string;
  rev_note: string;
  username: string;
  deployments_total: number;
  user_defined_fields: unknown[];
}

/**
 * A private image: its details, its replicas (`regions`) with their statuses, and the regions it
 * is stored in (`POST /images/{id}/regions`: the list replaces the current one).
 */
export function ImageDetail() {
  const { name } = useParams();
  const client = useQueryClient();
  const can = useCan();
  const regionList = useRegionList();
  const path = `/images/private/${name}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Image>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const image = q.data;
  const writable = can.write('image', Number(name));
  // Images are stored in the core regions that offer object storage.
  const storable = regionList.filter(
    (r) => r.capabilities.includes('Object Storage') && r.site_type !== 'distributed',
  );
  const kept = new Set(
    (image.regions ?? []).filter((r) => r.status !== 'pending deletion').map((r) => r.region),
  );
  return (
    <>
      <div className="page-head">
        <h1>{image.label}</h1>
        <Status value={image.status} />
      </div>
      <Section title="Image">
        <Details value={image as unknown as Record<string, unknown>} omit={['label', 'regions']} />
      </Section>
      <Section title="Regions">
        <Table
          caption="Replicas"
          rows={image.regions ?? []}
          rowKey={(r) => r.region}
          columns={[
            { key: 'region', label: 'Region' },
            { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          ]}
        />
        {writable && storable.length > 0 ? (
          <Disclosure label="Replicate">
            <Form
              fields={storable.map((r) => ({
                name: r.id,
                label: `${r.label} (${r.id})`,
                type: 'checkbox' as const,
                initial: kept.has(r.id),
              }))}
              submitLabel="Save regions"
              onSubmit={async (v) => {
                await post(`${path}/regions`, {
                  regions: storable.map((r) => r.id).filter((id) => v[id] === true),
                });
                await client.invalidateQueries();
              }}
            >
              <p className="help">
                The image is kept in the regions checked and removed from the others; one region
                where it is available must stay.
              </p>
            </Form>
          </Disclosure>
        ) : null}
      </Section>
    </>
  );
}

export function StackScripts() {
  const can = useCan();
  const client = useQueryClient();
  const [mine, setMine] = useState(true);
  return (
    <>
      <h1>StackScripts</h1>
      <Tabs
        label="StackScripts"
        names={['Mine', 'Public'] as const}
        value={mine ? 'Mine' : 'Public'}
        onChange={(n) => setMine(n === 'Mine')}
      />
      <ListView<StackScript>
        key={String(mine)}
        path="/compute/stackscripts"
        title={mine ? 'My StackScripts' : 'Public StackScripts'}
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'username', label: 'Author' },
        ]}
        baseFilter={mine ? { mine: true } : { is_public: true }}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/stackscripts/${r.id}`}>{r.label}</Link>,
          },
          { key: 'username', label: 'Author' },
          { key: 'images', label: 'Images' },
          { key: 'deployments_total', label: 'Deployments' },
          { key: 'is_public', label: 'Public' },
        ]}
      />
      {can.add('stackscript') ? (
        <Disclosure label="Create a StackScript">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              { name: 'images', label: 'Images (one a line)', type: 'list', required: true },
              {
                name: 'script',
                label: 'Script',
                type: 'textarea',
                required: true,
                initial: '#!/bin/bash\n',
              },
              { name: 'description', label: 'Description' },
              { name: 'is_public', label: 'Public', type: 'checkbox' },
            ]}
            submitLabel="Create StackScript"
            onSubmit={async (v) => {
              await post('/compute/stackscripts', v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

export function StackScriptDetail() {
  const { id } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = `/compute/stackscripts/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<StackScript>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const s = q.data;
  return (
    <>
      <h1>{s.label}</h1>
      <Section title="StackScript">
        <Details value={s as unknown as Record<string, unknown>} omit={['script', 'label']} />
        <h3>Script</h3>
        <pre>{s.script}</pre>
      </Section>
      {s.mine ? (
        <Section title="Edit">
          <Form
            fields={[
              { name: 'label', label: 'Label', initial: s.label },
              { name: 'description', label: 'Description', initial: s.description },
              { name: 'script', label: 'Script', type: 'textarea', initial: s.script },
              { name: 'rev_note', label: 'Revision note' },
              {
                name: 'is_public',
                label: 'Public (cannot be undone)',
                type: 'checkbox',
                initial: s.is_public,
              },
            ]}
            submitLabel="Save"
            onSubmit={async (v) => {
              await put(path, v);
              await client.invalidateQueries();
            }}
          />
          <div className="actions">
            <ActionButton
              label="Delete"
              danger
              confirm={`Delete ${s.label}?`}
              run={async () => {
                await del(path);
                await client.invalidateQueries();
                navigate('/console/stackscripts');
              }}
            />
          </div>
        </Section>
      ) : null}
    </>
  );
}

export function Tags() {
  const client = useQueryClient();
  const [open, setOpen] = useState<string>();
  const tagged = useQuery({
    queryKey: ['/tags', open],
    enabled: open !== undefined,
    queryFn: () =>
      get<Page<{ type: string; data: { id?: number | string; label?: string; address?: string } }>>(
        `/tags/${encodeURIComponent(open ?? '')}`,
      ),
  });
  return (
    <>
      <h1>Tags</h1>
      <ListView<{ label: string }>
        path="/tags"
        title="Tags"
        rowKey={(r) => r.label}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => (
              <button type="button" className="secondary" onClick={() => setOpen(r.label)}>
                {r.label}
              </button>
            ),
          },
          {
            key: 'x',
            label: 'Actions',
            render: (r) => (
              <ActionButton
                label="Delete"
                secondary
                confirm={`Delete tag ${r.label}?`}
                run={async () => {
                  await del(`/tags/${encodeURIComponent(r.label)}`);
                  await client.invalidateQueries();
                }}
              />
            ),
          },
        ]}
      />
      {open ? (
        <Section title={`Tagged “${open}”`}>
          <ErrorBox error={tagged.error} />
          <Table
            caption={`Objects tagged ${open}`}
            rows={tagged.data?.data ?? []}
            columns={[
              { key: 'type', label: 'Type', render: (r) => r.type.replace(/_/g, ' ') },
              // A reserved IPv4 address is named by its address.
              { key: 'label', label: 'Label', render: (r) => r.data.label ?? r.data.address },
            ]}
          />
        </Section>
      ) : null}
      <Disclosure label="Create a tag">
        <Form
          fields={[{ name: 'label', label: 'Label', required: true }]}
          submitLabel="Create tag"
          onSubmit={async (v) => {
            await post('/tags', v);
            await client.invalidateQueries();
          }}
        />
      </Disclosure>
    </>
  );
}
