import { ProjectsClient } from '@google-cloud/resource-manager';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { accountEmail, GRANTS, type Grant, type GrantTarget } from '@/scripts/lib/cloud/access';
import { isNotFound, type CloudContext } from '@/scripts/lib/cloud/context';
import type { Change, Part } from '@/scripts/lib/cloud/plan';

/**
 * The roles of access.ts GRANTS, each on its resource: the project's policy (Resource Manager), a secret's
 * (Secret Manager), a topic's or subscription's (Pub/Sub over REST: the topics may live in the emulator).
 * Bindings are only added: roles granted by hand to others are left alone. Each grant reads the policy
 * afresh and writes it back with its etag, so a concurrent change is refused rather than lost.
 */
interface Policy {
  version?: number | null;
  etag?: unknown;
  bindings?: Array<{ role?: string | null; members?: string[] | null; condition?: unknown }> | null;
}

interface PolicyAccess {
  read: () => Promise<Policy>;
  write: (policy: Policy) => Promise<unknown>;
}

const targetName = (target: GrantTarget) => (target.kind === 'project' ? 'the project' : `${target.kind} ${target.name}`);

const holds = (policy: Policy, role: string, member: string) =>
  (policy.bindings ?? []).some((binding) => binding.role === role && !binding.condition && binding.members?.includes(member));

function withMember(policy: Policy, role: string, member: string): Policy {
  const bindings = (policy.bindings ?? []).map((binding) => ({ ...binding, members: [...(binding.members ?? [])] }));
  const binding = bindings.find((candidate) => candidate.role === role && !candidate.condition);
  if (binding) binding.members.push(member);
  else bindings.push({ role, members: [member] });
  return { ...policy, bindings };
}

export function iamPart(context: CloudContext, grants: Grant[] = GRANTS): Part & { close: () => Promise<void> } {
  // resource-manager brings an older google-gax whose auth types differ: the same client at run time.
  const projects = new ProjectsClient(context.gapic as unknown as ConstructorParameters<typeof ProjectsClient>[0]);
  const secrets = new SecretManagerServiceClient(context.gapic);
  const { projectId } = context;
  const missingIsEmpty = (error: unknown): Policy => {
    // A resource that does not exist yet (a dry run: created above, later) holds no grant.
    if (isNotFound(error)) return {};
    throw error;
  };

  const access = (target: GrantTarget): PolicyAccess => {
    if (target.kind === 'project') {
      const resource = `projects/${projectId}`;
      return {
        read: async () => (await projects.getIamPolicy({ resource, options: { requestedPolicyVersion: 3 } }))[0] as Policy,
        write: (policy) => projects.setIamPolicy({ resource, policy } as Parameters<ProjectsClient['setIamPolicy']>[0]),
      };
    }
    if (target.kind === 'secret') {
      const resource = `projects/${projectId}/secrets/${target.name}`;
      return {
        read: async () => (await secrets.getIamPolicy({ resource }).catch((error: unknown) => [missingIsEmpty(error)]))[0] as Policy,
        write: (policy) => secrets.setIamPolicy({ resource, policy } as Parameters<SecretManagerServiceClient['setIamPolicy']>[0]),
      };
    }
    const resource = `projects/${projectId}/${target.kind === 'topic' ? 'topics' : 'subscriptions'}/${target.name}`;
    return {
      read: () => context.rest<Policy>('pubsub', 'GET', `/v1/${resource}:getIamPolicy`).catch(missingIsEmpty),
      write: (policy) => context.rest('pubsub', 'POST', `/v1/${resource}:setIamPolicy`, { policy }),
    };
  };

  let pubsubAgent: string | undefined;
  const memberOf = async (grant: Grant) => {
    if (grant.member !== 'pubsubAgent') return `serviceAccount:${accountEmail(projectId, grant.member)}`;
    if (!pubsubAgent) {
      const [project] = await projects.getProject({ name: `projects/${projectId}` });
      const number = String(project.name ?? '').replace(/^projects\//, '');
      pubsubAgent = `serviceAccount:service-${number}@gcp-sa-pubsub.iam.gserviceaccount.com`;
    }
    return pubsubAgent;
  };
  const who = (grant: Grant) => (grant.member === 'pubsubAgent' ? 'the Pub/Sub service agent' : `sb-${grant.member}`);

  return {
    title: 'IAM: roles of the service accounts',
    close: async () => {
      await Promise.all([projects.close(), secrets.close()]);
    },
    plan: async () => {
      const changes: Change[] = [];
      const policies = new Map<string, Promise<Policy>>();
      for (const grant of grants) {
        const target = access(grant.on);
        const key = targetName(grant.on);
        if (!policies.has(key)) policies.set(key, target.read());
        const member = await memberOf(grant);
        const resource = `${who(grant)}: ${grant.role} on ${key}`;
        if (holds(await policies.get(key)!, grant.role, member)) {
          changes.push({ kind: 'unchanged', resource, detail: grant.reason });
          continue;
        }
        changes.push({
          kind: 'create',
          resource,
          detail: grant.reason,
          apply: async () => {
            const policy = await target.read();
            if (!holds(policy, grant.role, member)) await target.write(withMember(policy, grant.role, member));
          },
        });
      }
      return changes;
    },
  };
}
