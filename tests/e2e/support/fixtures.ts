import { test as base } from 'playwright/test';
import { AppShell, ForgotPasswordPage, LoginPage, SignUpPage } from '@/tests/e2e/support/authPages';
import { ConnectionPage, ConnectionsPage, NewConnectionPage } from '@/tests/e2e/support/connectionsPages';
import { AppsPage, ConversionsPage, NewConversionPage } from '@/tests/e2e/support/conversionsPages';
import { DestinationsPage } from '@/tests/e2e/support/destinationsPage';
import { OnboardingPage, OrganizationsPage } from '@/tests/e2e/support/organizationsPages';
import { SourcesPage } from '@/tests/e2e/support/sourcesPage';
import { TeamPage } from '@/tests/e2e/support/teamPage';

export { expect } from 'playwright/test';

interface PageObjects {
  loginPage: LoginPage;
  signUpPage: SignUpPage;
  forgotPasswordPage: ForgotPasswordPage;
  appShell: AppShell;
  onboardingPage: OnboardingPage;
  organizationsPage: OrganizationsPage;
  sourcesPage: SourcesPage;
  destinationsPage: DestinationsPage;
  connectionsPage: ConnectionsPage;
  newConnectionPage: NewConnectionPage;
  connectionPage: ConnectionPage;
  appsPage: AppsPage;
  newConversionPage: NewConversionPage;
  conversionsPage: ConversionsPage;
  teamPage: TeamPage;
}

/**
 * Playwright's `test` with a page object of each page the specs drive, on the test's `page`. A second
 * browser context (an invitee, another member) makes its own: `new LoginPage(otherPage)`.
 */
export const test = base.extend<PageObjects>({
  loginPage: async ({ page }, provide) => provide(new LoginPage(page)),
  signUpPage: async ({ page }, provide) => provide(new SignUpPage(page)),
  forgotPasswordPage: async ({ page }, provide) => provide(new ForgotPasswordPage(page)),
  appShell: async ({ page }, provide) => provide(new AppShell(page)),
  onboardingPage: async ({ page }, provide) => provide(new OnboardingPage(page)),
  organizationsPage: async ({ page }, provide) => provide(new OrganizationsPage(page)),
  sourcesPage: async ({ page }, provide) => provide(new SourcesPage(page)),
  destinationsPage: async ({ page }, provide) => provide(new DestinationsPage(page)),
  connectionsPage: async ({ page }, provide) => provide(new ConnectionsPage(page)),
  newConnectionPage: async ({ page }, provide) => provide(new NewConnectionPage(page)),
  connectionPage: async ({ page }, provide) => provide(new ConnectionPage(page)),
  appsPage: async ({ page }, provide) => provide(new AppsPage(page)),
  newConversionPage: async ({ page }, provide) => provide(new NewConversionPage(page)),
  conversionsPage: async ({ page }, provide) => provide(new ConversionsPage(page)),
  teamPage: async ({ page }, provide) => provide(new TeamPage(page)),
});
