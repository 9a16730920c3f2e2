import { CloudSchedulerClient } from '@google-cloud/scheduler';
import { TOPICS } from '@/lib/server/queue/pubsub';
import { isNotFound, type CloudContext } from '@/scripts/lib/cloud/context';
import type { Change, Part } from '@/scripts/lib/cloud/plan';

/**
 * The Cloud Scheduler job that publishes the sync scheduler's tick to `sync-ticks` every minute. A Pub/Sub
 * target publishes as the Cloud Scheduler service agent, so the job needs no service account of ours.
 */
export interface TickJob {
  id: string;
  schedule: string;
  timeZone: string;
  description: string;
  /** The message body (the tick carries nothing). */
  body: string;
}

export const TICK_JOB: TickJob = {
  id: 'sync-tick',
  schedule: '* * * * *',
  timeZone: 'Etc/UTC',
  description: 'Tells the sync scheduler to look for due connections (npm run cloud:setup)',
  body: '{}',
};

export function schedulerPart(context: CloudContext, declared: TickJob = TICK_JOB): Part & { close: () => Promise<void> } {
  const client = new CloudSchedulerClient(context.gapic);
  const parent = `projects/${context.projectId}/locations/${context.location}`;
  const job = {
    name: `${parent}/jobs/${declared.id}`,
    schedule: declared.schedule,
    timeZone: declared.timeZone,
    description: declared.description,
    pubsubTarget: { topicName: `projects/${context.projectId}/topics/${TOPICS.syncTicks}`, data: Buffer.from(declared.body) },
  };
  return {
    title: `Cloud Scheduler (${context.location})`,
    close: () => client.close(),
    plan: async (): Promise<Change[]> => {
      const resource = `scheduler job ${declared.id}`;
      const [current] = await client.getJob({ name: job.name }).catch((error: unknown) => {
        if (isNotFound(error)) return [null];
        throw error;
      });
      if (!current) {
        return [
          {
            kind: 'create',
            resource,
            detail: `'${declared.schedule}' ${declared.timeZone} → topic ${TOPICS.syncTicks}`,
            apply: () => client.createJob({ parent, job }),
          },
        ];
      }
      const held: Record<string, string> = {
        schedule: current.schedule ?? '',
        timeZone: current.timeZone ?? '',
        description: current.description ?? '',
        pubsubTarget: `${current.pubsubTarget?.topicName ?? '(none)'} ${Buffer.from(current.pubsubTarget?.data ?? '').toString()}`,
      };
      const wanted: Record<string, string> = {
        schedule: job.schedule,
        timeZone: job.timeZone,
        description: job.description,
        pubsubTarget: `${job.pubsubTarget.topicName} ${declared.body}`,
      };
      const drifted = Object.keys(wanted).filter((key) => held[key] !== wanted[key]);
      if (!drifted.length) return [{ kind: 'unchanged', resource, detail: `'${declared.schedule}' ${declared.timeZone}` }];
      return [
        {
          kind: 'update',
          resource,
          detail: drifted.map((key) => `${key} '${held[key]}' → '${wanted[key]}'`).join(', '),
          apply: () =>
            client.updateJob({ job, updateMask: { paths: drifted.map((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) } }),
        },
      ];
    },
  };
}
