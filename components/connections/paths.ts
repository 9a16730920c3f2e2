/** Where the connection pages live (a module of its own: the create page needs these and little else). */

const org = (orgId: string) => `/${encodeURIComponent(orgId)}`;
export const connectionsPath = (orgId: string) => `${org(orgId)}/connection`;
export const createConnectionPath = (orgId: string) => `${org(orgId)}/createConnection`;
export const connectionPath = (orgId: string, id: string) => `${org(orgId)}/connection/${encodeURIComponent(id)}/configuration`;
export const connectionTestPath = (orgId: string, id: string) => `${org(orgId)}/connection/${encodeURIComponent(id)}/test1`;
export const subscriptionPath = (orgId: string) => `${org(orgId)}/subscription`;
export const runPath = (orgId: string, id: string, runId: string) =>
  `${org(orgId)}/connection/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}`;
/** The run history as CSV (a server route: the page holds the last 30 runs, the file has up to 1,000). */
export const runsCsvUrl = (orgId: string, id: string) =>
  `/api/orgs/${encodeURIComponent(orgId)}/connections/${encodeURIComponent(id)}/runs.csv`;
