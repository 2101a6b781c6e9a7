import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Chart } from '../components/chart';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, usd } from '../components/ui';
import { all, del, get, post } from '../lib/api';

interface Invoice {
  id: number;
  date: string;
  label: string;
  subtotal: number;
  tax: number;
  total: number;
}

/** Balance, this month's accrual beside the invoiced months, invoices, payments, cards. */
export function Billing() {
  const can = useCan();
  const client = useQueryClient();
  const writable = can.account === 'read_write';
  const account = useQuery({
    queryKey: ['/account'],
    queryFn: () => get<{ balance: number; balance_uninvoiced: number }>('/account'),
  });
  const invoices = useQuery({
    queryKey: ['/account/invoices', 'all'],
    queryFn: () => all<Invoice>('/account/invoices'),
  });
  // The server's clock (an operator may have moved it), for this month's bar.
  const info = useQuery({
    queryKey: ['info'],
    queryFn: async () =>
      (await (await fetch('/_stratus/info')).json()) as { clock: { now: string } },
  });
  const refresh = () => client.invalidateQueries();
  // One bar per invoiced month (oldest first) and this month's accrual so far as the last one.
  const months = [...(invoices.data ?? [])].reverse();
  const now = info.data ? Date.parse(info.data.clock.now) : Date.now();
  const points = [
    ...months.map((i) => [Date.parse(`${i.date}Z`), i.total]),
    ...(account.data ? [[now, account.data.balance_uninvoiced]] : []),
  ];
  return (
    <>
      <h1>Billing</h1>
      <ErrorBox error={account.error} />
      {account.data ? (
        <div className="stats">
          <div className="stat">
            <span className="n" data-testid="balance">
              {usd(account.data.balance)}
            </span>{' '}
            balance
          </div>
          <div className="stat">
            <span className="n" data-testid="uninvoiced">
              {usd(account.data.balance_uninvoiced)}
            </span>{' '}
            accrued this month, not invoiced
          </div>
        </div>
      ) : null}
      {points.length > 0 ? (
        <Section title="Charges by month">
          <Chart
            title="Invoiced months and this month's accrual so far"
            unit="$"
            bars
            series={[{ label: 'charges', points, color: '#0a58a8' }]}
          />
        </Section>
      ) : null}
      <ListView<Invoice>
        path="/account/invoices"
        title="Invoices"
        rowKey={(i) => i.id}
        columns={[
          {
            key: 'label',
            label: 'Invoice',
            render: (i) => (
              <Link to={`/console/billing/invoices/${i.id}`}>{`${i.label} ${i.id}`}</Link>
            ),
          },
          { key: 'date', label: 'Date' },
          { key: 'subtotal', label: 'Subtotal', render: (i) => usd(i.subtotal) },
          { key: 'tax', label: 'Tax', render: (i) => usd(i.tax) },
          { key: 'total', label: 'Total', render: (i) => usd(i.total) },
        ]}
      />
      <ListView<{ id: number; date: string; usd: number }>
        path="/account/payments"
        title="Payments"
        rowKey={(p) => p.id}
        columns={[
          { key: 'id', label: 'Payment' },
          { key: 'date', label: 'Date' },
          { key: 'usd', label: 'Amount', render: (p) => usd(p.usd) },
        ]}
      />
      <ListView<{
        id: number;
        type: string;
        is_default: boolean;
        created: string;
        data: { card_type?: string; last_four?: string; expiry?: string };
      }>
        path="/account/payment-methods"
        title="Payment methods"
        rowKey={(m) => m.id}
        columns={[
          { key: 'type', label: 'Type' },
          {
            key: 'card',
            label: 'Card',
            render: (m) =>
              `${m.data.card_type ?? ''} …${m.data.last_four ?? ''} (${m.data.expiry ?? ''})`,
          },
          { key: 'is_default', label: 'Default' },
          ...(writable
            ? [
                {
                  key: 'x',
                  label: 'Actions',
                  render: (m: { id: number; is_default: boolean }) =>
                    m.is_default ? null : (
                      <span className="actions">
                        <ActionButton
                          label="Make default"
                          secondary
                          run={async () => {
                            await post(`/account/payment-methods/${m.id}/make-default`);
                            await refresh();
                          }}
                        />
                        <ActionButton
                          label="Remove"
                          secondary
                          confirm="Remove this card?"
                          run={async () => {
                            await del(`/account/payment-methods/${m.id}`);
                            await refresh();
                          }}
                        />
                      </span>
                    ),
                },
              ]
            : []),
        ]}
      />
      {writable ? (
        <>
          <Disclosure label="Add a card">
            <Form
              fields={[
                {
                  name: 'card_number',
                  label: 'Card number',
                  required: true,
                  help: 'Simulated: 4111111111111111 succeeds, 4000000000000002 is declined.',
                },
                { name: 'expiry_month', label: 'Expiry month', type: 'number', required: true },
                { name: 'expiry_year', label: 'Expiry year', type: 'number', required: true },
                { name: 'cvv', label: 'CVV', required: true },
                {
                  name: 'is_default',
                  label: 'Make it the default',
                  type: 'checkbox',
                  initial: true,
                },
              ]}
              submitLabel="Add card"
              onSubmit={async (v) => {
                const { is_default, ...data } = v;
                await post('/account/payment-methods', {
                  type: 'credit_card',
                  is_default: is_default === true,
                  data,
                });
                await refresh();
              }}
            />
          </Disclosure>
          <Disclosure label="Make a payment">
            <Form
              fields={[{ name: 'usd', label: 'Amount (US dollars, e.g. 10.00)', required: true }]}
              submitLabel="Pay"
              onSubmit={async (v) => {
                await post('/account/payments', v);
                await refresh();
              }}
            />
          </Disclosure>
        </>
      ) : null}
    </>
  );
}

export function InvoiceDetail() {
  const { id } = useParams();
  const path = `/account/invoices/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Invoice>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  return (
    <>
      <h1>{q.data.label}</h1>
      <Section title="Invoice">
        <Details
          value={{
            ...q.data,
            subtotal: usd(q.data.subtotal),
            tax: usd(q.data.tax),
            total: usd(q.data.total),
          }}
        />
      </Section>
      <ListView<{
        label: string;
        type: string;
        from: string | null;
        to: string | null;
        quantity: number;
        unit_price: string;
        amount: number;
        total: number;
        region: string | null;
      }>
        path={`${path}/items`}
        title="Items"
        columns={[
          { key: 'label', label: 'Item' },
          { key: 'type', label: 'Type' },
          { key: 'region', label: 'Region' },
          { key: 'from', label: 'From' },
          { key: 'to', label: 'To' },
          { key: 'quantity', label: 'Hours' },
          { key: 'unit_price', label: 'Unit price' },
          { key: 'total', label: 'Total', render: (r) => usd(r.total) },
        ]}
      />
    </>
  );
}

interface Transfer {
  token: string;
  status: string;
  is_sender: boolean;
  expiry: string;
  created: string;
  entities: { computes: number[] };
}

/** Service transfers, maintenance and notifications. */
export function Transfers() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <h1>Transfers and maintenance</h1>
      <ListView<Transfer>
        path="/account/service-transfers"
        title="Service transfers"
        rowKey={(t) => t.token}
        filters={[
          { key: 'status', label: 'Status' },
          { key: 'is_sender', label: 'Sent by me', type: 'boolean' },
        ]}
        columns={[
          { key: 'token', label: 'Token', render: (t) => <code>{t.token}</code> },
          { key: 'status', label: 'Status', render: (t) => <Status value={t.status} /> },
          { key: 'is_sender', label: 'Sent by me' },
          { key: 'entities', label: 'Instances', render: (t) => t.entities.computes.join(', ') },
          { key: 'expiry', label: 'Expires' },
          {
            key: 'x',
            label: 'Actions',
            render: (t) =>
              t.status === 'pending' && t.is_sender ? (
                <ActionButton
                  label="Cancel"
                  secondary
                  run={async () => {
                    await del(`/account/service-transfers/${t.token}`);
                    await refresh();
                  }}
                />
              ) : null,
          },
        ]}
      />
      <Disclosure label="Send instances to another account">
        <Form
          fields={[
            {
              name: 'computes',
              label: 'Instance ids (comma separated)',
              type: 'list',
              required: true,
            },
          ]}
          submitLabel="Create transfer"
          onSubmit={async (v) => {
            await post('/account/service-transfers', {
              entities: { computes: (v.computes as string[]).map(Number) },
            });
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Accept a transfer">
        <Form
          fields={[{ name: 'token', label: 'Transfer token', required: true }]}
          submitLabel="Accept transfer"
          onSubmit={async (v) => {
            await post(`/account/service-transfers/${v.token}/accept`);
            await refresh();
          }}
        />
      </Disclosure>
      <ListView<{
        entity: { label: string; type: string };
        type: string;
        status: string;
        when: string;
        reason: string;
      }>
        path="/account/maintenance"
        title="Maintenance"
        columns={[
          { key: 'entity', label: 'Entity', render: (m) => `${m.entity.type} ${m.entity.label}` },
          { key: 'type', label: 'Type' },
          { key: 'status', label: 'Status', render: (m) => <Status value={m.status} /> },
          { key: 'when', label: 'When' },
          { key: 'reason', label: 'Reason' },
        ]}
      />
      <ListView<{
        label: string;
        message: string;
        severity: string;
        type: string;
        when: string | null;
      }>
        path="/account/notifications"
        title="Notifications"
        columns={[
          { key: 'label', label: 'Notification' },
          { key: 'message', label: 'Message' },
          { key: 'severity', label: 'Severity' },
          { key: 'type', label: 'Type' },
        ]}
      />
    </>
  );
}
