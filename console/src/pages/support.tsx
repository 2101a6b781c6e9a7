import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form, type Values } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Tabs } from '../components/ui';
import { all, get, post } from '../lib/api';
import { useServes } from '../lib/openapi';

interface Ticket {
  id: number;
  summary: string;
  description: string;
  status: string;
  closable: boolean;
  opened: string;
  opened_by: string;
  updated: string;
  updated_by: string | null;
  closed: string | null;
  attachments: string[];
  entity: { id: number | null; label: string; type: string; url: string } | null;
}

interface Reply {
  id: number;
  created: string;
  created_by: string;
  description: string;
  from_compute: boolean;
}

/** What a ticket may be about: the create body's field and the collection to choose from. */
const ABOUT: { field: string; label: string; path: string; serves: string }[] = [
  { field: 'compute_id', label: 'An instance', path: '/compute/instances', serves: '' },
  { field: 'volume_id', label: 'A volume', path: '/volumes', serves: '' },
  { field: 'domain_id', label: 'A domain', path: '/domains', serves: '/domains' },
  { field: 'firewall_id', label: 'A firewall', path: '/networking/firewalls', serves: '' },
  { field: 'nodebalancer_id', label: 'A NodeBalancer', path: '/nodebalancers', serves: '' },
  { field: 'vpc_id', label: 'A VPC', path: '/vpcs', serves: '' },
  { field: 'vlan', label: 'A VLAN', path: '/networking/vlans', serves: '/networking/vlans' },
  {
    field: 'longviewclient_id',
    label: 'A Longview client',
    path: '/longview/clients',
    serves: '/longview/clients',
  },
];

/** One entity to choose: its id (a VLAN: its label and region, the body's `vlan` and `region`). */
interface Choice {
  id?: number;
  label?: string;
  domain?: string;
  region?: string;
}
const VLAN_SEP = '\n';

/** The console's page of a ticket's entity, by its type (a VLAN has none). */
const PAGE_OF: Record<string, string> = {
  compute: 'instances',
  volume: 'volumes',
  domain: 'domains',
  firewall: 'firewalls',
  nodebalancer: 'nodebalancers',
  vpc: 'vpcs',
  longview: 'longview',
};

const when = (iso: string | null) => (iso ? `${iso.replace('T', ' ')} UTC` : '—');

/** Support tickets: open ones (new, open) and closed ones, as the API lists them to this user. */
export function SupportTickets() {
  const [closed, setClosed] = useState(false);
  return (
    <>
      <h1>Support tickets</h1>
      <Tabs
        label="Tickets"
        names={['Open', 'Closed'] as const}
        value={closed ? 'Closed' : 'Open'}
        onChange={(n) => setClosed(n === 'Closed')}
      />
      <ListView<Ticket>
        key={String(closed)}
        path="/support/tickets"
        title={closed ? 'Closed tickets' : 'Open tickets'}
        rowKey={(r) => r.id}
        baseFilter={closed ? { closed: { '+neq': null } } : { closed: null }}
        orderBy={['opened', 'updated', 'closed']}
        columns={[
          {
            key: 'summary',
            label: 'Summary',
            render: (r) => <Link to={`/console/support/tickets/${r.id}`}>{r.summary}</Link>,
          },
          { key: 'id', label: 'Ticket' },
          { key: 'entity', label: 'About', render: (r) => r.entity?.label ?? '—' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'opened_by', label: 'Opened by' },
          { key: 'updated', label: 'Updated', render: (r) => when(r.updated) },
        ]}
      />
      <Disclosure label="Open a ticket">
        <OpenTicket />
      </Disclosure>
    </>
  );
}

/** A new ticket: summary, description and, optionally, one entity of the account. */
function OpenTicket() {
  const id = useId();
  const navigate = useNavigate();
  const client = useQueryClient();
  const serves = useServes();
  const can = useCan();
  const choices = ABOUT.filter((a) => a.serves === '' || serves(a.serves));
  const [about, setAbout] = useState('');
  const kind = choices.find((a) => a.field === about);
  const entities = useQuery({
    queryKey: [kind?.path, 'all'],
    enabled: kind !== undefined,
    queryFn: () => all<Choice>(kind?.path ?? ''),
  });
  // A Managed issue (`managed_issue`) needs Managed on the account: unrestricted users only.
  const settings = useQuery({
    queryKey: ['/account/settings'],
    enabled: can.unrestricted,
    queryFn: () => get<{ managed: boolean }>('/account/settings'),
  });
  const value = (e: Choice) =>
    kind?.field === 'vlan' ? `${e.label}${VLAN_SEP}${e.region}` : String(e.id);
  const name = (e: Choice) =>
    kind?.field === 'vlan' ? `${e.label} (${e.region})` : (e.label ?? e.domain ?? String(e.id));
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-about`}>About</label>
        <select id={`${id}-about`} value={about} onChange={(e) => setAbout(e.target.value)}>
          <option value="">Nothing in particular</option>
          {choices.map((a) => (
            <option key={a.field} value={a.field}>
              {a.label}
            </option>
          ))}
          {settings.data?.managed ? <option value="managed_issue">Managed</option> : null}
        </select>
      </div>
      <ErrorBox error={entities.error} />
      <Form
        key={about}
        fields={[
          { name: 'summary', label: 'Summary', required: true, help: '1 to 64 characters.' },
          { name: 'description', label: 'Description', type: 'textarea', required: true },
          ...(kind
            ? [
                {
                  name: kind.field,
                  label: `Which ${kind.label.replace(/^An? /, '').toLowerCase()}`,
                  type: 'select' as const,
                  required: true,
                  options: (entities.data ?? []).map((e) => ({ value: value(e), label: name(e) })),
                },
              ]
            : []),
        ]}
        submitLabel="Open ticket"
        onSubmit={async (v) => {
          const chosen = kind ? v[kind.field] : undefined;
          if (kind && chosen === undefined)
            throw new Error(
              `Choose the ${kind.label.replace(/^An? /, '').toLowerCase()}, or “Nothing in particular”.`,
            );
          const body: Values = { summary: v.summary, description: v.description };
          if (about === 'managed_issue') body.managed_issue = true;
          else if (kind?.field === 'vlan') {
            const [vlan, region] = String(chosen).split(VLAN_SEP);
            Object.assign(body, { vlan, region });
          } else if (kind) body[kind.field] = Number(chosen);
          const t = await post<Ticket>('/support/tickets', body);
          await client.invalidateQueries({ queryKey: ['/support/tickets'] });
          navigate(`/console/support/tickets/${t.id}`);
        }}
      />
    </>
  );
}

/** One ticket: its description and replies as a thread, a reply, an attachment, close. */
export function TicketDetail() {
  const { id } = useParams();
  const client = useQueryClient();
  const path = `/support/tickets/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Ticket>(path) });
  const replies = useQuery({
    queryKey: [`${path}/replies`, 'all'],
    queryFn: () => all<Reply>(`${path}/replies`),
  });
  // The reply and attachment forms start empty again after they were sent (not when an answer
  // arrives while one is being written).
  const [sent, setSent] = useState(0);
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const t = q.data;
  const refresh = () => client.invalidateQueries();
  const isClosed = t.status === 'closed';
  return (
    <>
      <div className="page-head">
        <h1>
          #{t.id}: {t.summary}
        </h1>
        {t.closable ? (
          <ActionButton
            label="Close ticket"
            secondary
            confirm="Close this ticket? A closed ticket takes no more replies."
            run={async () => {
              await post(`${path}/close`);
              await refresh();
            }}
          />
        ) : null}
      </div>
      <Section title="Ticket">
        {t.entity ? (
          <p>
            About the {t.entity.type === 'compute' ? 'instance' : t.entity.type}{' '}
            {t.entity.id !== null && PAGE_OF[t.entity.type] ? (
              <Link to={`/console/${PAGE_OF[t.entity.type]}/${t.entity.id}`}>{t.entity.label}</Link>
            ) : (
              <strong>{t.entity.label}</strong>
            )}
            .
          </p>
        ) : null}
        <Details
          value={{
            status: t.status,
            opened: when(t.opened),
            opened_by: t.opened_by,
            updated: when(t.updated),
            closed: t.closed ? when(t.closed) : null,
            closable: t.closable,
            attachments: t.attachments,
          }}
        />
      </Section>
      <Section title="Conversation">
        <ol className="thread" aria-label="Conversation">
          <li className="thread-item">
            <p className="thread-head">
              <strong>{t.opened_by}</strong> <span className="muted">{when(t.opened)}</span>
            </p>
            <p className="thread-body">{t.description}</p>
          </li>
          {(replies.data ?? []).map((r) => (
            <li key={r.id} className={r.from_compute ? 'thread-item support' : 'thread-item'}>
              <p className="thread-head">
                <strong>{r.created_by}</strong>
                {r.from_compute ? ' (support)' : ''}{' '}
                <span className="muted">{when(r.created)}</span>
              </p>
              <p className="thread-body">{r.description}</p>
            </li>
          ))}
        </ol>
        <ErrorBox error={replies.error} />
        {replies.isLoading ? <Loading what="Loading replies" /> : null}
      </Section>
      {isClosed ? (
        <p className="muted">This ticket is closed: it takes no more replies or attachments.</p>
      ) : (
        <>
          <Section title="Reply">
            <Form
              key={`reply-${sent}`}
              fields={[
                { name: 'description', label: 'Your reply', type: 'textarea', required: true },
              ]}
              submitLabel="Reply"
              onSubmit={async (v) => {
                await post(`${path}/replies`, v);
                setSent((n) => n + 1);
                await refresh();
              }}
            />
          </Section>
          <Disclosure label="Attach a file">
            <Form
              key={`file-${sent}`}
              fields={[
                {
                  name: 'file',
                  label: 'File',
                  type: 'file',
                  required: true,
                  help: '.gif, .jpg, .jpeg, .pjpg, .pjpeg, .tif, .tiff, .png, .pdf or .txt, at most 5 MiB.',
                },
              ]}
              submitLabel="Attach"
              onSubmit={async (v) => {
                const data = new FormData();
                if (v.file instanceof File) data.append('file', v.file, v.file.name);
                await post(`${path}/attachments`, data);
                setSent((n) => n + 1);
                await refresh();
              }}
            />
          </Disclosure>
        </>
      )}
    </>
  );
}
