import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { Disclosure, Form } from '../components/form';
import { Section } from '../components/ui';
import { post, put } from '../lib/api';
import { useImages, usePolicies, useRegions, useTypes } from '../lib/catalogue';
import type { Instance } from './compute';

/** The long operations of an instance: label and tags, resize, rebuild, rescue, clone, migrate, root password. */
export function Operations({
  i,
  path,
  writable,
}: {
  i: Instance;
  path: string;
  writable: boolean;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const types = useTypes();
  const regions = useRegions();
  const images = useImages();
  const policies = usePolicies();
  const refresh = () => client.invalidateQueries();
  if (!writable) return <p>You have read-only access to this instance.</p>;
  return (
    <>
      <Section title="Label and tags">
        <Form
          fields={[
            { name: 'label', label: 'Label', initial: i.label },
            {
              name: 'tags',
              label: 'Tags (comma separated)',
              type: 'list',
              initial: i.tags.join(', '),
            },
          ]}
          submitLabel="Save"
          onSubmit={async (v) => {
            await put(path, { tags: [], ...v });
            await refresh();
          }}
        />
      </Section>
      <Section title="Maintenance policy">
        <Form
          fields={[
            {
              name: 'maintenance_policy',
              label: 'Maintenance policy',
              type: 'select',
              required: true,
              options: policies,
              initial: i.maintenance_policy,
              help: 'What happens to the instance during scheduled maintenance.',
            },
          ]}
          submitLabel="Save maintenance policy"
          onSubmit={async (v) => {
            await put(path, { maintenance_policy: v.maintenance_policy });
            await refresh();
          }}
        />
      </Section>
      <Disclosure label="Resize">
        <Form
          fields={[
            { name: 'type', label: 'New plan', type: 'select', options: types, required: true },
            {
              name: 'allow_auto_disk_resize',
              label: 'Grow the disk with the plan',
              type: 'checkbox',
              initial: true,
            },
          ]}
          submitLabel="Resize"
          onSubmit={async (v) => {
            await post(`${path}/resize`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Rebuild">
        <Form
          fields={[
            { name: 'image', label: 'Image', type: 'select', options: images, required: true },
            { name: 'root_pass', label: 'Root password', type: 'password', required: true },
            { name: 'authorized_keys', label: 'SSH keys (one a line)', type: 'list' },
          ]}
          submitLabel="Rebuild"
          danger
          onSubmit={async (v) => {
            await post(`${path}/rebuild`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Rescue">
        <Form
          fields={[
            {
              name: 'devices',
              label: 'Devices (JSON, optional)',
              type: 'json',
              placeholder: '{"sda": {"disk_id": 1}}',
            },
          ]}
          submitLabel="Reboot into rescue mode"
          onSubmit={async (v) => {
            await post(`${path}/rescue`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Clone">
        <Form
          fields={[
            { name: 'label', label: 'Label of the clone' },
            { name: 'region', label: 'Region', type: 'select', options: regions },
            { name: 'type', label: 'Plan', type: 'select', options: types },
          ]}
          submitLabel="Clone"
          onSubmit={async (v) => {
            const c = await post<Instance>(`${path}/clone`, v);
            await refresh();
            navigate(`/console/instances/${c.id}`);
          }}
        />
      </Disclosure>
      <Disclosure label="Migrate">
        <Form
          fields={[
            {
              name: 'region',
              label: 'To region (empty: another host)',
              type: 'select',
              options: regions,
            },
            {
              name: 'type',
              label: 'Kind',
              type: 'select',
              options: [
                { value: 'warm', label: 'warm' },
                { value: 'cold', label: 'cold' },
              ],
            },
          ]}
          submitLabel="Migrate"
          onSubmit={async (v) => {
            await post(`${path}/migrate`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Reset root password">
        <Form
          fields={[
            { name: 'root_pass', label: 'New root password', type: 'password', required: true },
          ]}
          submitLabel="Reset password"
          onSubmit={(v) => post(`${path}/password`, v)}
        />
      </Disclosure>
    </>
  );
}
