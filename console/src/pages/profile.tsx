import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ActionButton, Disclosure, Form } from '../components/form';
import { ListView } from '../components/list';
import { Details, ErrorBox, Section } from '../components/ui';
import { del, get, post, put } from '../lib/api';

/** The signed-in user: details, personal access tokens, SSH keys, authorized apps, 2FA. */
export function ProfilePage() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries();
  const profile = useQuery({
    queryKey: ['/profile', 'full'],
    queryFn: () => get<Record<string, unknown>>('/profile'),
  });
  const [token, setToken] = useState<{ label: string; token: string }>();
  const [tfa, setTfa] = useState<{ secret: string; expiry: string }>();
  const [scratch, setScratch] = useState<string>();
  const p = profile.data;
  return (
    <>
      <h1>My profile</h1>
      <ErrorBox error={profile.error} />
      {p ? (
        <Section title="Profile">
          <Details value={p} omit={['referrals', 'authorized_keys']} />
          <Disclosure label="Edit profile">
            <Form
              fields={[
                { name: 'email', label: 'Email', type: 'email', initial: String(p.email ?? '') },
                { name: 'timezone', label: 'Time zone', initial: String(p.timezone ?? '') },
              ]}
              submitLabel="Save profile"
              onSubmit={async (v) => {
                await put('/profile', v);
                await refresh();
              }}
            />
          </Disclosure>
        </Section>
      ) : null}
      <ListView<{
        id: number;
        label: string;
        scopes: string;
        created: string;
        expiry: string | null;
        token: string;
      }>
        path="/profile/tokens"
        title="Personal access tokens"
        rowKey={(t) => t.id}
        filters={[{ key: 'label', label: 'Label' }]}
        columns={[
          { key: 'label', label: 'Label' },
          { key: 'scopes', label: 'Scopes' },
          { key: 'token', label: 'Token (start)' },
          { key: 'created', label: 'Created' },
          { key: 'expiry', label: 'Expires' },
          {
            key: 'x',
            label: 'Revoke',
            render: (t) => (
              <ActionButton
                label="Revoke"
                secondary
                confirm={`Revoke ${t.label}?`}
                run={async () => {
                  await del(`/profile/tokens/${t.id}`);
                  await refresh();
                }}
              />
            ),
          },
        ]}
      />
      <Disclosure label="Create a personal access token">
        <Form
          fields={[
            { name: 'label', label: 'Label', required: true },
            {
              name: 'scopes',
              label: 'Scopes',
              initial: '*',
              help: '* or a list such as "computes:read_write volumes:read_only".',
            },
            {
              name: 'expiry',
              label: 'Expires (ISO date-time, empty: never)',
              placeholder: '2027-01-01T00:00:00',
            },
          ]}
          submitLabel="Create token"
          onSubmit={async (v) => {
            setToken(await post('/profile/tokens', v));
            await refresh();
          }}
        />
      </Disclosure>
      {token ? (
        <Section title={`Token “${token.label}” created`}>
          <p className="notice" role="status">
            The token is shown now and never again: copy it.
          </p>
          <p className="secret" data-testid="new-token">
            {token.token}
          </p>
          <button type="button" className="secondary" onClick={() => setToken(undefined)}>
            I have copied it
          </button>
        </Section>
      ) : null}
      <ListView<{ id: number; label: string; ssh_key: string; created: string }>
        path="/profile/sshkeys"
        title="SSH keys"
        rowKey={(k) => k.id}
        columns={[
          { key: 'label', label: 'Label' },
          {
            key: 'ssh_key',
            label: 'Key',
            render: (k) => <code className="json">{k.ssh_key.slice(0, 48)}…</code>,
          },
          { key: 'created', label: 'Added' },
          {
            key: 'x',
            label: 'Remove',
            render: (k) => (
              <ActionButton
                label="Remove"
                secondary
                run={async () => {
                  await del(`/profile/sshkeys/${k.id}`);
                  await refresh();
                }}
              />
            ),
          },
        ]}
      />
      <Disclosure label="Add an SSH key">
        <Form
          fields={[
            { name: 'label', label: 'Label', required: true },
            { name: 'ssh_key', label: 'Public key', type: 'textarea', required: true },
          ]}
          submitLabel="Add key"
          onSubmit={async (v) => {
            await post('/profile/sshkeys', v);
            await refresh();
          }}
        />
      </Disclosure>
      <ListView<{ id: number; label: string; scopes: string; website: string; created: string }>
        path="/profile/apps"
        title="Authorized apps"
        rowKey={(a) => a.id}
        columns={[
          { key: 'label', label: 'App' },
          { key: 'scopes', label: 'Scopes' },
          { key: 'website', label: 'Site' },
          { key: 'created', label: 'Authorized' },
          {
            key: 'x',
            label: 'Revoke',
            render: (a) => (
              <ActionButton
                label="Revoke"
                secondary
                confirm={`Revoke ${a.label}'s access? Its tokens stop working.`}
                run={async () => {
                  await del(`/profile/apps/${a.id}`);
                  await refresh();
                }}
              />
            ),
          },
        ]}
      />
      <Section title="Two-factor authentication">
        {p?.two_factor_auth ? (
          <>
            <p>Two-factor authentication is on.</p>
            <ActionButton
              label="Turn off two-factor authentication"
              danger
              confirm="Turn off two-factor authentication?"
              run={async () => {
                await post('/profile/tfa-disable');
                await refresh();
              }}
            />
          </>
        ) : tfa ? (
          <>
            <p>Add this secret to an authenticator app, then enter the code it shows.</p>
            <p className="secret">{tfa.secret}</p>
            <Form
              fields={[
                {
                  name: 'tfa_code',
                  label: 'Code from the app',
                  required: true,
                  autoComplete: 'one-time-code',
                },
              ]}
              submitLabel="Confirm"
              onSubmit={async (v) => {
                const r = await post<{ scratch: string }>('/profile/tfa-enable-confirm', v);
                setScratch(r.scratch);
                setTfa(undefined);
                await refresh();
              }}
            />
          </>
        ) : (
          <ActionButton
            label="Turn on two-factor authentication"
            run={async () => setTfa(await post('/profile/tfa-enable'))}
          />
        )}
        {scratch ? (
          <p className="notice" role="status">
            Your scratch code (shown once): <code>{scratch}</code>
          </p>
        ) : null}
      </Section>
      <ListView<{ id: number; user_agent: string; last_remote_addr: string; expiry: string }>
        path="/profile/devices"
        title="Trusted devices"
        rowKey={(d) => d.id}
        columns={[
          { key: 'user_agent', label: 'Browser' },
          { key: 'last_remote_addr', label: 'Last address' },
          { key: 'expiry', label: 'Until' },
          {
            key: 'x',
            label: 'Revoke',
            render: (d) => (
              <ActionButton
                label="Revoke"
                secondary
                run={async () => {
                  await del(`/profile/devices/${d.id}`);
                  await refresh();
                }}
              />
            ),
          },
        ]}
      />
    </>
  );
}
