import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { SECRETS } from '@/scripts/lib/cloud/access';
import { isNotFound, type CloudContext } from '@/scripts/lib/cloud/context';
import type { Change, Part } from '@/scripts/lib/cloud/plan';

/**
 * A Secret Manager secret per secret variable of the server (access.ts SECRETS): the containers only. Values
 * are never read, printed or made up; a secret without an enabled version is reported for a person to fill.
 */
export function secretsPart(context: CloudContext): Part & { close: () => Promise<void> } {
  const client = new SecretManagerServiceClient(context.gapic);
  const parent = `projects/${context.projectId}`;
  const todo = (name: string, required: boolean) =>
    `${required ? 'give' : 'if you use it, give'} ${name} a value: gcloud secrets versions add ${name} --project=${context.projectId} --data-file=-`;
  return {
    title: 'Secret Manager secrets',
    close: () => client.close(),
    plan: async () => {
      const changes: Change[] = [];
      for (const { name, readers, required } of SECRETS) {
        const resource = `secret ${name}`;
        const readBy = `${required ? 'required' : 'optional'}, read by ${readers.map((reader) => `sb-${reader}`).join(', ')}`;
        const [current] = await client.getSecret({ name: `${parent}/secrets/${name}` }).catch((error: unknown) => {
          if (isNotFound(error)) return [null];
          throw error;
        });
        if (!current) {
          changes.push({
            kind: 'create',
            resource,
            detail: `${readBy}; no version yet`,
            todo: todo(name, required),
            apply: () =>
              client.createSecret({
                parent,
                secretId: name,
                secret: { replication: { automatic: {} }, labels: { app: 'signalbridge' } },
              }),
          });
          continue;
        }
        const [versions] = await client.listSecretVersions({ parent: `${parent}/secrets/${name}`, filter: 'state:ENABLED' });
        const hasValue = versions.length > 0;
        changes.push({
          kind: 'unchanged',
          resource,
          detail: `${readBy}; ${hasValue ? 'has a value' : 'no version yet'}`,
          todo: hasValue ? undefined : todo(name, required),
        });
      }
      return changes;
    },
  };
}
