import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { useServes } from '../lib/openapi';
import { useEventPoller } from '../lib/events';
import { signOut } from '../lib/oauth';
import { type Can, permissions, useGrants, useProfile } from '../lib/perms';
import { useSession } from '../lib/session-hooks';
import { ErrorBox, Loading } from './ui';
import { Logo } from './logo';
import { createContext, useContext } from 'react';

const CanContext = createContext<Can>(permissions(undefined, undefined));
/** What the signed-in user may see and do (restricted users: their grants). */
export const useCan = () => useContext(CanContext);

interface NavItem {
  to: string;
  label: string;
  show: (c: Can, serves: (p: string) => boolean) => boolean;
}
const NAV: { title: string; items: NavItem[] }[] = [
  {
    title: 'Compute',
    items: [
      { to: '/console/instances', label: 'Instances', show: (c) => c.see('compute') },
      { to: '/console/volumes', label: 'Volumes', show: (c) => c.see('volume') },
      { to: '/console/images', label: 'Images', show: (c) => c.unrestricted || c.see('image') },
      { to: '/console/stackscripts', label: 'StackScripts', show: () => true },
      {
        to: '/console/placement-groups',
        label: 'Placement groups',
        show: (c, serves) => serves('/placement/groups') && c.see('compute'),
      },
    ],
  },
  {
    title: 'Network',
    items: [
      { to: '/console/firewalls', label: 'Firewalls', show: (c) => c.see('firewall') },
      { to: '/console/vpcs', label: 'VPCs', show: (c) => c.see('vpc') },
      { to: '/console/nodebalancers', label: 'NodeBalancers', show: (c) => c.see('nodebalancer') },
      {
        to: '/console/domains',
        label: 'Domains',
        show: (c, serves) => serves('/domains') && c.see('domain'),
      },
      {
        to: '/console/reserved-ips',
        label: 'Reserved IPs',
        show: (c, serves) => serves('/networking/reserved/ips') && c.see('compute'),
      },
    ],
  },
  {
    title: 'Storage',
    items: [
      { to: '/console/object-storage', label: 'Object storage', show: (c) => c.unrestricted },
      { to: '/console/tags', label: 'Tags', show: (c) => c.unrestricted },
    ],
  },
  {
    title: 'Account',
    items: [
      { to: '/console/account', label: 'Account & users', show: (c) => c.account !== null },
      { to: '/console/billing', label: 'Billing', show: (c) => c.account !== null },
      {
        to: '/console/transfers',
        label: 'Transfers & maintenance',
        show: (c) => c.account !== null,
      },
      { to: '/console/events', label: 'Events', show: () => true },
      { to: '/console/profile', label: 'My profile', show: () => true },
    ],
  },
  {
    title: 'Monitoring & help',
    items: [
      {
        to: '/console/longview',
        label: 'Longview',
        show: (c, s) => s('/longview/clients') && (c.see('longview') || c.account !== null),
      },
      {
        to: '/console/managed',
        label: 'Managed',
        show: (c, s) => s('/managed/services') && c.unrestricted,
      },
      {
        to: '/console/support/tickets',
        label: 'Support tickets',
        show: (_c, s) => s('/support/tickets'),
      },
    ],
  },
];

/** The signed-in shell: the header, the navigation (a menu on a narrow screen), the page. */
export function Layout() {
  const session = useSession();
  const location = useLocation();
  const profile = useProfile();
  const grants = useGrants(profile.data);
  const serves = useServes();
  const client = useQueryClient();
  // The menu (narrow screens) is open for the page it was opened on: a new page closes it.
  const [menuFor, setMenuFor] = useState<string>();
  const menu = menuFor === location.pathname;
  useEventPoller(session !== undefined);
  if (!session)
    return (
      <Navigate to={`/console/sign-in?next=${encodeURIComponent(location.pathname)}`} replace />
    );
  if (profile.error) return <ErrorBox error={profile.error} />;
  if (!profile.data || (profile.data.restricted && !grants.data && !grants.error))
    return <Loading what="Signing in" />;
  const can = permissions(profile.data, grants.data);
  return (
    <CanContext.Provider value={can}>
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header className="topbar">
        <NavLink to="/console" className="brand" aria-label="Stratus console home">
          <Logo /> Stratus
        </NavLink>
        <button
          type="button"
          className="menu-toggle secondary"
          aria-expanded={menu}
          aria-controls="nav"
          onClick={() => setMenuFor(menu ? undefined : location.pathname)}
        >
          Menu
        </button>
        <div className="who">
          <span>
            {profile.data.username}
            {profile.data.restricted ? ' (restricted)' : ''}
          </span>
          <button
            type="button"
            className="secondary"
            onClick={async () => {
              await signOut(session);
              client.clear();
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <div className="shell">
        <nav id="nav" className={menu ? 'nav open' : 'nav'} aria-label="Console">
          {NAV.map((g) => {
            const items = g.items.filter((i) => i.show(can, serves));
            if (items.length === 0) return null;
            return (
              <div key={g.title} className="nav-group">
                <p className="nav-title">{g.title}</p>
                <ul>
                  {items.map((i) => (
                    <li key={i.to}>
                      <NavLink to={i.to}>{i.label}</NavLink>
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
          <div className="nav-group">
            <p className="nav-title">Server</p>
            <ul>
              <li>
                <NavLink to="/console/operator">Operator panel</NavLink>
              </li>
              <li>
                <a href="/_stratus/docs">API reference</a>
              </li>
            </ul>
          </div>
        </nav>
        <main id="main" className="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </CanContext.Provider>
  );
}
