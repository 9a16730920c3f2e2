// A deadline, not a sleep: on a busy 2-core machine (CI beside another stack) a set-up that creates users,
// organizations and fake servers can take longer than Jest's 5 s default. (A project's `testTimeout` is not
// read by jest-circus, only the global one: hence here, for the API tests alone.)
jest.setTimeout(30_000);
