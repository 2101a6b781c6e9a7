import { useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, type Page, post } from '../lib/api';
import { useServes } from '../lib/openapi';
import { ActionButton, Form } from './form';
import { useCan } from './layout';
import { ErrorBox, Section, Table } from './ui';

interface Lock {
  id: number;
  lock_type: string;
}

/** What each lock type refuses, as the API applies it. */
const WHAT: Record<string, string> = {
  cannot_delete: 'The resource cannot be deleted (nor an instance rebuilt or transferred).',
  cannot_delete_with_subresources:
    'As cannot_delete, and its parts cannot be deleted either: an instance’s disks, configurations, interfaces and IP addresses; a NodeBalancer’s configurations and nodes.',
};

/**
 * The resource locks of an instance, volume or NodeBalancer: its `locks` for everyone who sees
 * it; unrestricted users (the only ones the API lets manage locks) add and remove them through
 * `/locks`. Hidden on a server that does not serve locks (the entity has no `locks`).
 */
export function Locks({
  type,
  id,
  label,
  locks,
}: {
  type: 'compute' | 'volume' | 'nodebalancer';
  id: number;
  label: string;
  locks: string[] | undefined;
}) {
  const can = useCan();
  const serves = useServes();
  const client = useQueryClient();
  const manage = can.unrestricted && serves('/locks');
  const q = useQuery({
    queryKey: ['/locks', { type, id }],
    enabled: manage && locks !== undefined,
    queryFn: () => get<Page<Lock>>('/locks', { filter: { 'entity.type': type, 'entity.id': id } }),
  });
  if (locks === undefined) return null;
  const refresh = () => client.invalidateQueries();
  const rows: Lock[] =
    manage && q.data ? q.data.data : locks.map((t, i) => ({ id: -1 - i, lock_type: t }));
  return (
    <Section title="Locks">
      <ErrorBox error={q.error} />
      <Table
        caption={`Locks on ${label}`}
        rows={rows}
        rowKey={(r) => r.id}
        columns={[
          { key: 'lock_type', label: 'Lock' },
          { key: 'what', label: 'What it refuses', render: (r) => WHAT[r.lock_type] ?? '' },
          ...(manage
            ? [
                {
                  key: 'x',
                  label: 'Remove',
                  render: (r: Lock) =>
                    r.id > 0 ? (
                      <ActionButton
                        label={`Remove lock ${r.lock_type}`}
                        secondary
                        run={async () => {
                          await del(`/locks/${r.id}`);
                          await refresh();
                        }}
                      />
                    ) : null,
                },
              ]
            : []),
        ]}
      />
      {manage && locks.length === 0 ? (
        <Form
          fields={[
            {
              name: 'lock_type',
              label: 'Lock type',
              type: 'select',
              required: true,
              initial: 'cannot_delete',
              options: Object.keys(WHAT).map((t) => ({ value: t, label: t })),
              help: 'A locked resource is refused deletion until the lock is removed.',
            },
          ]}
          submitLabel="Add lock"
          onSubmit={async (v) => {
            await post('/locks', { entity_type: type, entity_id: id, lock_type: v.lock_type });
            await refresh();
          }}
        />
      ) : null}
    </Section>
  );
}
