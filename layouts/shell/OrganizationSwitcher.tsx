import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { selectOrganization, type OrganizationState } from '@/store/organizationSlice';
import { fetchOrganizations } from '@/store/thunks';
import { selectUser, type UserState } from '@/store/userSlice';

interface Shown {
  id: string;
  name: string | null;
  logo: string | null;
}

/** The organization the pages belong to (the URL's, else the selected one), from whatever is loaded. */
function currentOrganization(orgId: string, user: UserState, organization: OrganizationState): Shown {
  const document = organization.document?.organization_id === orgId ? organization.document : null;
  const entry = user.organizations?.find((candidate) => candidate.organizationId === orgId);
  const selected = user.orgId === orgId ? user.organization : null;
  return {
    id: orgId,
    name: document?.name || entry?.companyName || selected?.name || null,
    logo: document ? document.logo : (entry?.logo ?? selected?.logo ?? null),
  };
}

function Logo({ name, logo }: { name: string | null; logo: string | null }) {
  if (logo) {
    // eslint-disable-next-line @next/next/no-img-element -- logos are user data URLs or external URLs
    return <img className="org-switcher__logo" src={logo} alt="" />;
  }
  return (
    <span className="org-switcher__logo org-switcher__logo--initial" aria-hidden>
      {name?.slice(0, 1).toUpperCase() || '?'}
    </span>
  );
}

type Opening = 'first' | 'last' | null;

const itemsOf = (menu: HTMLElement | null) => Array.from(menu?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);

/**
 * Which organization this is, and a menu button (WAI-ARIA menu pattern: arrows, Home/End, Escape)
 * to switch: each of the user's organizations opens its connections; "All organizations" the list.
 */
export default function OrganizationSwitcher() {
  const router = useRouter();
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const organization = useAppSelector(selectOrganization);
  const [open, setOpen] = useState<Opening>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  // Opening focuses the first (or last) item, and again when the list arrives or reloads under the open
  // menu (opening refreshes it) — until the user moves within it themselves.
  const moved = useRef(false);
  useEffect(() => {
    if (!open || moved.current) return;
    const all = itemsOf(menu.current);
    (open === 'first' ? all[0] : all[all.length - 1])?.focus();
  }, [open, user.organizations]);

  useEffect(() => {
    if (!open) return;
    const closeOutside = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(null);
    };
    document.addEventListener('mousedown', closeOutside);
    return () => document.removeEventListener('mousedown', closeOutside);
  }, [open]);

  useEffect(() => {
    const close = () => setOpen(null);
    router.events.on('routeChangeStart', close);
    return () => router.events.off('routeChangeStart', close);
  }, [router.events]);

  const orgId = typeof router.query.orgId === 'string' ? router.query.orgId : user.orgId;
  if (!user.isAuthenticated || !orgId) return null;
  const current = currentOrganization(orgId, user, organization);
  const organizations = user.organizations ?? [];

  function openMenu(at: Exclude<Opening, null>) {
    moved.current = false;
    setOpen(at);
    // The list may have changed since it was loaded (a new organization, an accepted invitation).
    if (!user.super_admin) void dispatch(fetchOrganizations());
  }

  function onButtonKey(event: KeyboardEvent) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      openMenu(event.key === 'ArrowDown' ? 'first' : 'last');
    }
  }

  function onMenuKey(event: KeyboardEvent) {
    const all = itemsOf(menu.current);
    const index = all.indexOf(document.activeElement as HTMLElement);
    const move: Record<string, number | undefined> = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: all.length - 1 };
    if (event.key in move) {
      event.preventDefault();
      moved.current = true;
      all[(move[event.key]! + all.length) % all.length]?.focus();
    } else if (event.key === ' ') {
      event.preventDefault();
      all[index]?.click();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setOpen(null);
      button.current?.focus();
    } else if (event.key === 'Tab') {
      setOpen(null);
    }
  }

  return (
    <div className="org-switcher">
      <button
        ref={button}
        type="button"
        className="org-switcher__button"
        aria-haspopup="menu"
        aria-expanded={open !== null}
        aria-controls={menuId}
        title={current.name ?? undefined}
        onClick={() => (open ? setOpen(null) : openMenu('first'))}
        onKeyDown={onButtonKey}
      >
        <Logo name={current.name} logo={current.logo} />
        <span className="org-switcher__text">
          <span className="org-switcher__caption">Organization</span>
          <span className="org-switcher__name" data-testid="current-organization">
            {current.name ?? 'Loading…'}
          </span>
        </span>
        <span className="org-switcher__chevron" aria-hidden>
          ▾
        </span>
      </button>
      <div
        ref={menu}
        id={menuId}
        role="menu"
        aria-label="Switch organization"
        className="org-switcher__menu"
        hidden={open === null}
        onKeyDown={onMenuKey}
      >
        {organizations.map((entry) => (
          <Link
            key={entry.organizationId}
            role="menuitem"
            tabIndex={-1}
            className="org-switcher__item"
            aria-current={entry.organizationId === orgId ? 'true' : undefined}
            href={`/${encodeURIComponent(entry.organizationId)}/connection`}
          >
            <Logo name={entry.companyName} logo={entry.logo} />
            <span className="org-switcher__item-name">{entry.companyName}</span>
          </Link>
        ))}
        {organizations.length > 0 && <div role="separator" className="org-switcher__separator" />}
        <Link role="menuitem" tabIndex={-1} className="org-switcher__item" href="/organizations">
          All organizations
        </Link>
      </div>
    </div>
  );
}
