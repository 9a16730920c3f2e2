import Cookies from 'js-cookie';
import { useRouter } from 'next/router';
import { useEffect, useRef, type ReactNode } from 'react';
import Spinner from '@/components/ui/Spinner';
import { ensureServerSession, isAuthFlowRunning } from '@/lib/client/auth/session';
import {
  CALLBACK_COOKIE,
  CALLBACK_PARAM,
  PENDING_INVITATION_COOKIE,
  pendingInvitationPath,
  clearsFlowKeys,
  isAcceptInvitationPage,
  isAuthPage,
  isRememberedAsCallback,
  orgIdOfPath,
  organizationsDestination,
  safeCallback,
  sessionRedirect,
} from '@/lib/shared/navigation';
import { flowCleared } from '@/store/flowSlice';
import { useAppDispatch, useAppSelector, useRehydrated } from '@/store/hooks';
import { watchMembership } from '@/lib/client/firebase/membership';
import { organizationAccessLost, selectOrganization, type OrganizationState } from '@/store/organizationSlice';
import { hasActiveSubscription, requiresSubscription } from '@/lib/shared/billing/gate';
import { checkSuperAdmin, fetchOrganization, fetchOrganizations } from '@/store/thunks';
import { organizationSelected, selectUser } from '@/store/userSlice';

const GLOBAL_SUBSCRIPTION_PAGE = /^\/subscription(?:\/success|\/failure)?$/;

/**
 * Where an organization page sends its user once the organization has loaded (or failed to): not a
 * member → the list; no subscription, or the check failed → the subscription page.
 */
function organizationRedirect(orgId: string, path: string, organization: OrganizationState): string | null {
  if (organization.status === 'error' && organization.failure === 'not_found') return '/organizations';
  if (!requiresSubscription(path)) return null;
  const subscriptionPage = `/${encodeURIComponent(orgId)}/subscription`;
  if (organization.status === 'error') return subscriptionPage;
  if (organization.status === 'success' && !hasActiveSubscription(organization.document?.subscription ?? null)) {
    return subscriptionPage;
  }
  return null;
}

/** Pages where loading the organizations decides where the user belongs. */
const LANDING_PAGES = new Set(['/', '/organizations', '/onboarding']);

/**
 * The navigation rules of docs/PRODUCT.md §3 in the browser (middleware.ts applies the same rules to full
 * page loads). While a redirect is pending the page is not shown.
 */
export default function RouteGuard({ children }: { children: ReactNode }) {
  const router = useRouter();
  const dispatch = useAppDispatch();
  const rehydrated = useRehydrated();
  const user = useAppSelector(selectUser);
  const organization = useAppSelector(selectOrganization);
  const organizationsRequested = useRef(false);

  // Before the router is ready, asPath of a prerendered dynamic page is its pattern (/[orgId]/…).
  const [path = '/'] = router.isReady ? router.asPath.split(/[?#]/) : [];
  const orgId = router.isReady ? orgIdOfPath(path) : null;
  const callback = router.isReady ? (safeCallback(router.query[CALLBACK_PARAM]) ?? safeCallback(Cookies.get(CALLBACK_COOKIE))) : null;

  // Error pages are shown to everyone, whatever the path.
  const isErrorPage = ['/404', '/500', '/_error'].includes(router.pathname);
  let redirect: string | null = null;
  if (rehydrated && router.isReady && !isErrorPage && !isAuthFlowRunning()) {
    redirect = sessionRedirect({
      path,
      fullPath: router.asPath,
      signedIn: user.isAuthenticated,
      callback,
      pendingInvitation: pendingInvitationPath(Cookies.get(PENDING_INVITATION_COOKIE)),
    });
    if (!redirect && user.isAuthenticated) {
      if (path === '/settings' || path === '/payments') {
        // Both belong to the selected organization: its settings, its payment accounts.
        const section = path === '/settings' ? 'settings' : 'payment';
        redirect = user.orgId ? `/${encodeURIComponent(user.orgId)}/${section}` : '/organizations';
      } else if (path === '/onboarding' && user.organizations?.length) {
        redirect = `/${encodeURIComponent(user.orgId ?? user.organizations[0]!.organizationId)}/connection`;
      } else if (GLOBAL_SUBSCRIPTION_PAGE.test(path)) {
        // The global subscription pages belong to the selected organization.
        const rest = router.asPath.slice(path.length);
        redirect = user.orgId ? `/${encodeURIComponent(user.orgId)}${path}${rest}` : '/organizations';
      } else if (orgId && orgId === user.orgId && !isAcceptInvitationPage(path)) {
        redirect = organizationRedirect(orgId, path, organization);
      }
    }
  }

  useEffect(() => {
    if (!redirect) return;
    let cancelled = false;
    void (async () => {
      if (!user.isAuthenticated && isRememberedAsCallback(path)) {
        Cookies.set(CALLBACK_COOKIE, router.asPath, { path: '/', sameSite: 'lax' });
      }
      if (user.isAuthenticated && isAuthPage(path)) {
        Cookies.remove(CALLBACK_COOKIE, { path: '/' });
        // The server may have lost the session (new browser tab after a restart): renew it first.
        await ensureServerSession().catch((error) => console.error('Could not renew the session', error));
      }
      if (!cancelled) await router.replace(redirect);
    })();
    return () => {
      cancelled = true;
    };
  }, [redirect, path, router, user.isAuthenticated]);

  // Once per session: the super-admin check, then the organizations.
  useEffect(() => {
    if (!rehydrated || !user.isAuthenticated || redirect) return;
    if (!user.checkedForSuperAdmin) {
      void dispatch(checkSuperAdmin());
      return;
    }
    if (user.organizations === null && !organizationsRequested.current) {
      organizationsRequested.current = true;
      void dispatch(fetchOrganizations())
        .unwrap()
        .then((organizations) => {
          const destination = organizationsDestination(organizations.map((entry) => entry.organizationId));
          const current = router.asPath.split(/[?#]/)[0] ?? '/';
          if (LANDING_PAGES.has(current) && destination !== current) void router.replace(destination);
        })
        .catch((error) => console.error('Could not load your organizations', error))
        .finally(() => {
          organizationsRequested.current = false;
        });
    }
  }, [rehydrated, user.isAuthenticated, user.checkedForSuperAdmin, user.organizations, redirect, dispatch, router]);

  // The organization in the URL becomes the selected one, and is loaded.
  useEffect(() => {
    if (!rehydrated || !user.isAuthenticated || !orgId || isAcceptInvitationPage(path)) return;
    if (orgId !== user.orgId) {
      dispatch(organizationSelected({ orgId }));
      void dispatch(fetchOrganization(orgId));
    } else if (organization.status === 'idle') {
      void dispatch(fetchOrganization(orgId));
    }
  }, [rehydrated, user.isAuthenticated, orgId, path, user.orgId, organization.status, dispatch]);

  // Removed from the organization while here: its pages close at once.
  const watchedOrgId = orgId && !isAcceptInvitationPage(path) ? orgId : null;
  useEffect(() => {
    if (!rehydrated || !user.isAuthenticated || !user.uid || user.super_admin || !watchedOrgId) return;
    let stop: (() => void) | undefined;
    let cancelled = false;
    void watchMembership(watchedOrgId, user.uid, () => dispatch(organizationAccessLost()))
      .then((unsubscribe) => {
        if (cancelled) unsubscribe();
        else stop = unsubscribe;
      })
      .catch((error) => console.error('Could not watch the membership', error));
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [rehydrated, user.isAuthenticated, user.uid, user.super_admin, watchedOrgId, dispatch]);

  useEffect(() => {
    if (router.isReady && clearsFlowKeys(path)) dispatch(flowCleared());
  }, [router.isReady, path, dispatch]);

  if (redirect) {
    return (
      <div className="centered">
        <Spinner label="Loading" />
      </div>
    );
  }
  return <>{children}</>;
}
