import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { ListView } from '../components/list';
import { ErrorBox, Loading, Section, Table } from '../components/ui';
import { del, get, post, put } from '../lib/api';
import { useOptions } from '../lib/catalogue';

interface Bucket {
  label: string;
  cluster: string;
  region: string;
  hostname: string;
  objects: number;
  size: number;
  created: string;
}

const ACLS = ['private', 'public-read', 'authenticated-read', 'public-read-write'].map((a) => ({
  value: a,
  label: a,
}));

/** Buckets and access keys (the secret shown once, when the key is made). */
export function ObjectStorage() {
  const client = useQueryClient();
  const clusters = useOptions<{ id: string; region: string }>('/object-storage/clusters', (c) => ({
    value: c.id,
    label: `${c.id} (${c.region})`,
  }));
  const [secret, setSecret] = useState<{ label: string; access_key: string; secret_key: string }>();
  return (
    <>
      <h1>Object storage</h1>
      <ListView<Bucket>
        path="/object-storage/buckets"
        title="Buckets"
        rowKey={(r) => `${r.cluster}/${r.label}`}
        columns={[
          {
            key: 'label',
            label: 'Name',
            render: (r) => (
              <Link to={`/console/object-storage/${r.cluster}/${r.label}`}>{r.label}</Link>
            ),
          },
          { key: 'cluster', label: 'Cluster' },
          { key: 'objects', label: 'Objects' },
          { key: 'size', label: 'Size (bytes)' },
          { key: 'hostname', label: 'Host name' },
          {
            key: 'x',
            label: 'Delete',
            render: (r) => (
              <ActionButton
                label="Delete"
                secondary
                confirm={`Delete the bucket ${r.label}? It must be empty.`}
                run={async () => {
                  await del(`/object-storage/buckets/${r.cluster}/${r.label}`);
                  await client.invalidateQueries();
                }}
              />
            ),
          },
        ]}
      />
      <Disclosure label="Create a bucket">
        <Form
          fields={[
            {
              name: 'label',
              label: 'Name',
              required: true,
              help: '3 to 63 lower-case letters, digits, dots and dashes.',
            },
            {
              name: 'cluster',
              label: 'Cluster',
              type: 'select',
              options: clusters,
              required: true,
            },
            { name: 'acl', label: 'Access', type: 'select', options: ACLS },
            { name: 'cors_enabled', label: 'Allow cross-origin requests (CORS)', type: 'checkbox' },
          ]}
          submitLabel="Create bucket"
          onSubmit={async (v) => {
            await post('/object-storage/buckets', v);
            await client.invalidateQueries();
          }}
        />
      </Disclosure>
      <ListView<{ id: number; label: string; access_key: string; limited: boolean }>
        path="/object-storage/keys"
        title="Access keys"
        rowKey={(r) => r.id}
        columns={[
          { key: 'label', label: 'Label' },
          { key: 'access_key', label: 'Access key' },
          { key: 'limited', label: 'Limited' },
          {
            key: 'x',
            label: 'Revoke',
            render: (r) => (
              <ActionButton
                label="Revoke"
                secondary
                confirm={`Revoke ${r.label}?`}
                run={async () => {
                  await del(`/object-storage/keys/${r.id}`);
                  await client.invalidateQueries();
                }}
              />
            ),
          },
        ]}
      />
      <Disclosure label="Create an access key">
        <Form
          fields={[{ name: 'label', label: 'Label', required: true }]}
          submitLabel="Create key"
          onSubmit={async (v) => {
            setSecret(await post('/object-storage/keys', v));
            await client.invalidateQueries();
          }}
        />
      </Disclosure>
      {secret ? (
        <Section title={`Key “${secret.label}” created`}>
          <p className="notice" role="status">
            The secret key is shown now and never again: copy it.
          </p>
          <dl className="details">
            <div>
              <dt>access key</dt>
              <dd>
                <code>{secret.access_key}</code>
              </dd>
            </div>
            <div>
              <dt>secret key</dt>
              <dd className="secret" data-testid="secret-key">
                {secret.secret_key}
              </dd>
            </div>
          </dl>
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setSecret(undefined)}>
              I have copied it
            </button>
          </div>
        </Section>
      ) : null}
    </>
  );
}

interface ObjectList {
  data: { name: string; size?: number; last_modified?: string; etag?: string }[];
  next_marker: string | null;
  is_truncated: boolean;
}

/** A pre-signed URL for one object (the API's object-url). */
const signed = (path: string, name: string, method: string, contentType?: string) =>
  post<{ url: string }>(`${path}/object-url`, {
    name,
    method,
    ...(contentType ? { content_type: contentType } : {}),
  });

/** One bucket: its objects by prefix, upload and download through pre-signed URLs, ACLs, CORS. */
export function BucketBrowser() {
  const { cluster, bucket } = useParams();
  const client = useQueryClient();
  const path = `/object-storage/buckets/${cluster}/${bucket}`;
  const [prefix, setPrefix] = useState('');
  const [markers, setMarkers] = useState<string[]>([]);
  const marker = markers[markers.length - 1];
  const [acl, setAcl] = useState<{ name: string; acl: string }>();
  const [status, setStatus] = useState<string>();
  const b = useQuery({
    queryKey: [path],
    queryFn: () => get<Bucket & { cors_enabled?: boolean }>(path),
  });
  const list = useQuery({
    queryKey: [`${path}/object-list`, prefix, marker],
    queryFn: () =>
      get<ObjectList>(`${path}/object-list`, {
        query: { prefix, delimiter: '/', ...(marker ? { marker } : {}) },
      }),
  });
  const refresh = () => client.invalidateQueries();
  const download = async (name: string) => {
    const { url } = await signed(path, name, 'GET');
    const a = document.createElement('a');
    a.href = url;
    a.download = name.split('/').pop() ?? name;
    document.body.append(a);
    a.click();
    a.remove();
  };
  return (
    <>
      <div className="page-head">
        <h1>{bucket}</h1>
        <span className="muted">{cluster}</span>
      </div>
      <ErrorBox error={b.error} />
      <Section title="Objects">
        <form
          className="filters"
          onSubmit={(e) => e.preventDefault()}
          aria-label="Browse by prefix"
        >
          <div className="filter">
            <label htmlFor="prefix">Prefix</label>
            <input
              id="prefix"
              value={prefix}
              onChange={(e) => {
                setMarkers([]);
                setPrefix(e.target.value);
              }}
            />
          </div>
          {prefix ? (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setMarkers([]);
                setPrefix(prefix.replace(/[^/]*\/?$/, ''));
              }}
            >
              Up one level
            </button>
          ) : null}
        </form>
        <ErrorBox error={list.error} />
        {list.data ? (
          <Table
            caption="Objects"
            rows={list.data.data}
            rowKey={(r) => r.name}
            columns={[
              {
                key: 'name',
                label: 'Name',
                render: (r) =>
                  r.name.endsWith('/') ? (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => {
                        setMarkers([]);
                        setPrefix(r.name);
                      }}
                    >
                      {r.name}
                    </button>
                  ) : (
                    r.name
                  ),
              },
              { key: 'size', label: 'Size (bytes)' },
              { key: 'last_modified', label: 'Modified' },
              {
                key: 'x',
                label: 'Actions',
                render: (r) =>
                  r.name.endsWith('/') ? null : (
                    <span className="actions">
                      <ActionButton label="Download" secondary run={() => download(r.name)} />
                      <ActionButton
                        label="Access"
                        secondary
                        run={async () =>
                          setAcl({
                            name: r.name,
                            ...(await get<{ acl: string }>(`${path}/object-acl`, {
                              query: { name: r.name },
                            })),
                          })
                        }
                      />
                      <ActionButton
                        label="Delete"
                        secondary
                        confirm={`Delete ${r.name}?`}
                        run={async () => {
                          const { url } = await signed(path, r.name, 'DELETE');
                          await fetch(url, { method: 'DELETE' });
                          await refresh();
                        }}
                      />
                    </span>
                  ),
              },
            ]}
          />
        ) : list.isLoading ? (
          <Loading />
        ) : null}
        <nav className="pager" aria-label="Object pages">
          <button
            type="button"
            className="secondary"
            disabled={markers.length === 0}
            onClick={() => setMarkers(markers.slice(0, -1))}
          >
            Previous
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!list.data?.is_truncated}
            onClick={() =>
              list.data?.next_marker && setMarkers([...markers, list.data.next_marker])
            }
          >
            Next
          </button>
        </nav>
      </Section>
      <Section title="Upload">
        <Form
          fields={[{ name: 'file', label: 'File', type: 'file', required: true }]}
          submitLabel="Upload"
          onSubmit={async (v) => {
            const file = v.file;
            if (!(file instanceof File)) throw new Error('Choose a file to upload.');
            const type = file.type || 'application/octet-stream';
            const name = `${prefix}${file.name}`;
            const { url } = await signed(path, name, 'PUT', type);
            const res = await fetch(url, {
              method: 'PUT',
              body: file,
              headers: { 'content-type': type },
            });
            if (!res.ok) throw new Error(`The upload failed: ${res.status}`);
            setStatus(`Uploaded ${name} (${file.size} bytes).`);
            await refresh();
          }}
        />
        {status ? <p role="status">{status}</p> : null}
      </Section>
      {acl ? (
        <Section title={`Access of ${acl.name}`}>
          <Form
            key={acl.name}
            fields={[
              {
                name: 'acl',
                label: 'Access',
                type: 'select',
                options: ACLS,
                initial: acl.acl,
                required: true,
              },
            ]}
            submitLabel="Save object access"
            onSubmit={async (v) => {
              await put(`${path}/object-acl`, { name: acl.name, acl: v.acl });
            }}
          />
        </Section>
      ) : null}
      <Section title="Bucket access and CORS">
        <p className="help">The API does not show a bucket's current access; this sets it.</p>
        <Form
          fields={[
            {
              name: 'acl',
              label: 'Bucket access',
              type: 'select',
              options: ACLS,
              initial: 'private',
              required: true,
            },
            { name: 'cors_enabled', label: 'Allow cross-origin requests (CORS)', type: 'checkbox' },
          ]}
          submitLabel="Save bucket access"
          onSubmit={async (v) => {
            await put(`${path}/access`, v);
            await refresh();
          }}
        />
      </Section>
    </>
  );
}
