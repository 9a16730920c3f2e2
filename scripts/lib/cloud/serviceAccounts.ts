import { accountEmail, SERVICE_ACCOUNTS, type AccountKey } from '@/scripts/lib/cloud/access';
import { isNotFound, type CloudContext } from '@/scripts/lib/cloud/context';
import type { Change, Part } from '@/scripts/lib/cloud/plan';

/** The services' accounts (IAM Admin API over REST: it has no GAPIC client). */
interface ServiceAccount {
  email: string;
  displayName?: string;
  description?: string;
}

export function serviceAccountsPart(context: CloudContext): Part {
  const base = `/v1/projects/${context.projectId}/serviceAccounts`;
  return {
    title: 'Service accounts',
    plan: async () => {
      const changes: Change[] = [];
      for (const key of Object.keys(SERVICE_ACCOUNTS) as AccountKey[]) {
        const { id, displayName, description } = SERVICE_ACCOUNTS[key];
        const email = accountEmail(context.projectId, key);
        const resource = `service account ${email}`;
        const current = await context.rest<ServiceAccount>('iam', 'GET', `${base}/${email}`).catch((error: unknown) => {
          if (isNotFound(error)) return null;
          throw error;
        });
        if (!current) {
          const body = { accountId: id, serviceAccount: { displayName, description } };
          changes.push({ kind: 'create', resource, detail: displayName, apply: () => context.rest('iam', 'POST', base, body) });
          continue;
        }
        const drifted = (['displayName', 'description'] as const).filter((name) => (current[name] ?? '') !== SERVICE_ACCOUNTS[key][name]);
        if (!drifted.length) {
          changes.push({ kind: 'unchanged', resource, detail: displayName });
          continue;
        }
        const body = { serviceAccount: { displayName, description }, updateMask: drifted.join(',') };
        changes.push({
          kind: 'update',
          resource,
          detail: drifted.map((name) => `${name} '${current[name] ?? ''}' → '${SERVICE_ACCOUNTS[key][name]}'`).join(', '),
          apply: () => context.rest('iam', 'PATCH', `${base}/${email}`, body),
        });
      }
      return changes;
    },
  };
}
