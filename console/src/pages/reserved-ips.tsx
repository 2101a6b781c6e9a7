import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { ErrorBox, show } from '../components/ui';
import { all, del, get, type Page, post, put } from '../lib/api';
import { useOptions, useRegions } from '../lib/catalogue';

interface ReservedIp {
  address: string;
  region: string;
  compute_id: number | null;
  rdns: string | null;
  assigned_entity: { id: number; label: string; type: string; url: string } | null;
  tags: string[];
}

interface PriceType {
  id: string;
  label: string;
  price: { hourly: number | null; monthly: number | null };
}

const PATH = '/networking/reserved/ips';

/**
 * `/console/reserved-ips`: the account's reserved IPv4 addresses (kept when their instance goes),
 * with their price; unrestricted users reserve, tag, assign and release them (the API lets only
 * them); a restricted user sees those of the instances it may see.
 */
export function ReservedIps() {
  const can = useCan();
  const client = useQueryClient();
  const regions = useRegions();
  const manage = can.unrestricted;
  const types = useQuery({
    queryKey: [`${PATH}/types`],
    staleTime: 60_000,
    queryFn: () => get<Page<PriceType>>(`${PATH}/types`),
  });
  const mine = useQuery({
    queryKey: [PATH, 'all'],
    enabled: manage,
    queryFn: () => all<ReservedIp>(PATH),
  });
  const instances = useOptions<{ id: number; label: string; region: string }>(
    '/compute/instances',
    (i) => ({ value: String(i.id), label: `${i.label} (${i.region})` }),
    { enabled: manage },
  );
  const refresh = () => client.invalidateQueries();
  const price = types.data?.data[0]?.price;
  const addresses = (mine.data ?? []).map((r) => ({
    value: r.address,
    label: `${r.address} (${r.region})`,
  }));
  const unassigned = (mine.data ?? [])
    .filter((r) => r.assigned_entity === null)
    .map((r) => ({ value: r.address, label: `${r.address} (${r.region})` }));
  return (
    <>
      <h1>Reserved IPs</h1>
      <p className="help" data-testid="reserved-price">
        A reserved IPv4 address stays the account’s when its instance is deleted, and can be given
        to another instance of its region.
        {price?.hourly != null
          ? ` Each costs $${price.hourly} an hour while it is reserved, assigned or not${
              price.monthly != null ? ` (at most $${price.monthly} a month)` : ''
            }.`
          : null}
      </p>
      <ErrorBox error={types.error} />
      <ListView<ReservedIp>
        path={PATH}
        title="Reserved IPv4 addresses"
        rowKey={(r) => r.address}
        filters={[
          { key: 'address', label: 'Address' },
          { key: 'region', label: 'Region' },
          { key: 'tags', label: 'Tag' },
        ]}
        columns={[
          { key: 'address', label: 'Address' },
          { key: 'region', label: 'Region' },
          {
            key: 'assigned_entity',
            label: 'Assigned to',
            render: (r) =>
              r.assigned_entity ? (
                <Link to={`/console/instances/${r.assigned_entity.id}`}>
                  {r.assigned_entity.label}
                </Link>
              ) : (
                show(null)
              ),
          },
          { key: 'tags', label: 'Tags' },
          ...(manage
            ? [
                {
                  key: 'x',
                  label: 'Release',
                  render: (r: ReservedIp) => (
                    <ActionButton
                      label={`Release ${r.address}`}
                      secondary
                      confirm={`Release ${r.address}? ${
                        r.assigned_entity
                          ? `It stays on ${r.assigned_entity.label}, no longer reserved.`
                          : 'It goes back to the pool.'
                      }`}
                      run={async () => {
                        await del(`${PATH}/${r.address}`);
                        await refresh();
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {manage ? (
        <>
          <Disclosure label="Reserve an address">
            <Form
              fields={[
                {
                  name: 'region',
                  label: 'Region',
                  type: 'select',
                  options: regions,
                  required: true,
                },
                { name: 'tags', label: 'Tags', type: 'list', placeholder: 'web, prod' },
              ]}
              submitLabel="Reserve address"
              onSubmit={async (v) => {
                await post(PATH, v);
                await refresh();
              }}
            />
          </Disclosure>
          <Disclosure label="Edit tags">
            <Form
              fields={[
                {
                  name: 'address',
                  label: 'Address',
                  type: 'select',
                  options: addresses,
                  required: true,
                },
                { name: 'tags', label: 'New tags (they replace the current ones)', type: 'list' },
              ]}
              submitLabel="Save tags"
              onSubmit={async ({ address, tags }) => {
                if (!address) throw new Error('Choose an address.');
                await put(`${PATH}/${address}`, { tags: tags ?? [] });
                await refresh();
              }}
            />
          </Disclosure>
          <Disclosure label="Assign to an instance">
            <Form
              fields={[
                {
                  name: 'address',
                  label: 'Unassigned address',
                  type: 'select',
                  options: unassigned,
                  required: true,
                },
                {
                  name: 'compute_id',
                  label: 'Instance (same region)',
                  type: 'select',
                  options: instances,
                  required: true,
                },
              ]}
              submitLabel="Assign address"
              onSubmit={async ({ address, compute_id }) => {
                if (!address || !compute_id) throw new Error('Choose an address and an instance.');
                const ip = (mine.data ?? []).find((r) => r.address === address);
                await post('/networking/ips/assign', {
                  region: ip?.region,
                  assignments: [{ address, compute_id: Number(compute_id) }],
                });
                await refresh();
              }}
            />
          </Disclosure>
        </>
      ) : null}
    </>
  );
}
