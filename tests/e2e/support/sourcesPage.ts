import { expect, type Page } from 'playwright/test';

/** /{org}/source: the ad platforms an organization reads from, connected through the sandbox's consent pages. */
export class SourcesPage {
  constructor(readonly page: Page) {}

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/source`);
  }

  /** A Google Ads source with `accounts` picked (Acme Shoes is USD, Sandbox Direct Store EUR), through the consent screen. */
  async connectGoogleAds(orgId: string, accounts: RegExp[] = [/Acme Shoes/]) {
    await this.goto(orgId);
    await this.page.getByRole('button', { name: 'Connect Google Ads' }).click();
    await expect(this.page.getByRole('heading', { name: 'SignalBridge wants to access your Google account' })).toBeVisible();
    await this.page.getByRole('button', { name: 'Allow' }).click();
    await expect(this.page).toHaveURL(new RegExp(`/${orgId}/source/[^/]+/google/configuration\\?connected=1$`));
    for (const account of accounts) await this.page.getByRole('checkbox', { name: account }).check();
    await this.page.getByRole('button', { name: 'Save accounts' }).click();
    await expect(
      this.page.getByText(`Saved: ${accounts.length} account${accounts.length === 1 ? '' : 's'}.`, { exact: true }),
    ).toBeVisible();
  }
}
