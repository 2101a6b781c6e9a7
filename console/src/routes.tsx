import { createBrowserRouter } from 'react-router';
import { Layout } from './components/layout';
import { Landing } from './pages/landing';
import { Callback, SignIn } from './pages/signin';

/** Pages load with their section: the first page carries only the landing page and the shell. */
const page = (load: () => Promise<Record<string, unknown>>, name: string) => ({
  lazy: async () => ({ Component: (await load())[name] as React.ComponentType }),
});
const compute = () => import('./pages/compute');
const resources = () => import('./pages/resources');
const networking = () => import('./pages/networking');
const firewalls = () => import('./pages/firewalls');
const domains = () => import('./pages/domains');
const storage = () => import('./pages/storage');
const account = () => import('./pages/account');
const billing = () => import('./pages/billing');
const profile = () => import('./pages/profile');
const operator = () => import('./pages/operator');
const placement = () => import('./pages/placement');
const reservedIps = () => import('./pages/reserved-ips');
const support = () => import('./pages/support');
const longview = () => import('./pages/longview');
const managed = () => import('./pages/managed');

export const router = createBrowserRouter([
  { path: '/', Component: Landing },
  { path: '/console/sign-in', Component: SignIn },
  { path: '/console/callback', Component: Callback },
  {
    path: '/console/operator',
    ...page(operator, 'OperatorPanel'),
  },
  {
    path: '/console',
    Component: Layout,
    children: [
      { index: true, ...page(account, 'Dashboard') },
      { path: 'instances', ...page(compute, 'Instances') },
      { path: 'instances/create', ...page(compute, 'CreateInstance') },
      { path: 'instances/:id', ...page(compute, 'InstanceDetail') },
      { path: 'volumes', ...page(resources, 'Volumes') },
      { path: 'volumes/:id', ...page(resources, 'VolumeDetail') },
      { path: 'images', ...page(resources, 'Images') },
      { path: 'images/private/:name', ...page(resources, 'ImageDetail') },
      { path: 'stackscripts', ...page(resources, 'StackScripts') },
      { path: 'stackscripts/:id', ...page(resources, 'StackScriptDetail') },
      { path: 'tags', ...page(resources, 'Tags') },
      { path: 'firewalls', ...page(firewalls, 'Firewalls') },
      { path: 'firewalls/:id', ...page(firewalls, 'FirewallDetail') },
      { path: 'vpcs', ...page(networking, 'Vpcs') },
      { path: 'vpcs/:id', ...page(networking, 'VpcDetail') },
      { path: 'nodebalancers', ...page(networking, 'NodeBalancers') },
      { path: 'nodebalancers/:id', ...page(networking, 'NodeBalancerDetail') },
      { path: 'domains', ...page(domains, 'Domains') },
      { path: 'domains/:id', ...page(domains, 'DomainDetail') },
      { path: 'object-storage', ...page(storage, 'ObjectStorage') },
      { path: 'object-storage/:cluster/:bucket', ...page(storage, 'BucketBrowser') },
      { path: 'account', ...page(account, 'AccountPage') },
      { path: 'account/users/:username', ...page(account, 'UserDetail') },
      { path: 'events', ...page(account, 'Events') },
      { path: 'billing', ...page(billing, 'Billing') },
      { path: 'billing/invoices/:id', ...page(billing, 'InvoiceDetail') },
      { path: 'transfers', ...page(billing, 'Transfers') },
      { path: 'profile', ...page(profile, 'ProfilePage') },
      { path: 'placement-groups', ...page(placement, 'PlacementGroups') },
      { path: 'placement-groups/:id', ...page(placement, 'PlacementGroupDetail') },
      { path: 'reserved-ips', ...page(reservedIps, 'ReservedIps') },
      { path: 'support/tickets', ...page(support, 'SupportTickets') },
      { path: 'support/tickets/:id', ...page(support, 'TicketDetail') },
      { path: 'longview', ...page(longview, 'Longview') },
      { path: 'longview/:id', ...page(longview, 'LongviewClientDetail') },
      { path: 'managed', ...page(managed, 'Managed') },
      { path: '*', Component: () => <p>No such page.</p> },
    ],
  },
]);
