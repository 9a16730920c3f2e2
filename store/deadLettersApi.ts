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

export const deadLettersApi = api.injectEndpoints({
  endpoints: (build) => ({
    deadLetters: build.query<DeadLetterSummary, string>({
      query: (orgId) => ({ url: `/api/orgs/${encodeURIComponent(orgId)}/dead-letters`, method: 'GET' }),
      transformResponse: (response: { deadLetters: DeadLetterSummary }) => response.deadLetters,
    }),
  }),
});

export const { useDeadLettersQuery } = deadLettersApi;
