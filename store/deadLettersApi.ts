import { api } from '@/store/api';

export interface DeadLetterCounts {
  messages: number;
  events: number;
}

/** What an organization's queues set aside after 20 attempts (`GET /api/orgs/{orgId}/dead-letters`). */
export interface DeadLetterSummary {
  conversions: DeadLetterCounts;
  sync: DeadLetterCounts;
}

/** Every dead letter, for super admins (`GET /api/admin/dead-letters`). */
export interface AllDeadLetters {
  total: DeadLetterSummary;
  byOrganization: Array<{ org: string | null; messages: number; events: number }>;
  /** False when more letters wait than the split read (10,000). */
  complete: boolean;
}

export const deadLettersApi = api.injectEndpoints({
  endpoints: (build) => ({
    allDeadLetters: build.query<AllDeadLetters, void>({
      query: () => ({ url: '/api/admin/dead-letters', method: 'GET' }),
    }),
    deadLetters: build.query<DeadLetterSummary, string>({
      query: (orgId) => ({ url: `/api/orgs/${encodeURIComponent(orgId)}/dead-letters`, method: 'GET' }),
      transformResponse: (response: { deadLetters: DeadLetterSummary }) => response.deadLetters,
    }),
  }),
});

export const { useDeadLettersQuery, useAllDeadLettersQuery } = deadLettersApi;
