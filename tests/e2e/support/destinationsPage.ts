import { expect, type Page } from 'playwright/test';

export const sandboxUrl = () => process.env.NEXT_PUBLIC_PLATFORM_SANDBOX_URL!;

/** /{org}/destination: destinations connected through the sandbox's consent page or its service-account key. */
export class DestinationsPage {
  constructor(readonly page: Page) {}

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/destination`);
  }

  /** A BigQuery destination from the sandbox's service-account key, with its Acme Warehouse project picked. */
  async connectBigQuery(orgId: string) {
    await this.goto(orgId);
    const key = await (await this.page.request.get(`${sandboxUrl()}/google/service-account-key.json`)).text();
    const form = this.page.getByRole('form', { name: 'BigQuery with a service-account key' });
    await form.getByLabel('JSON key file').fill(key);
    await form.getByRole('button', { name: 'Connect with key' }).click();
    const project = this.page.getByRole('checkbox', { name: /Acme Warehouse/ });
    await expect(project).toBeVisible();
    if (!(await project.isChecked())) {
      await project.check();
      await this.page.getByRole('button', { name: 'Save projects' }).click();
      await expect(this.page.getByText(/^Saved: \d+ projects?\.$/)).toBeVisible();
    }
  }

  /** A Meta destination whose ad account 101 (Acme Shoes, pixel 555000111) is picked: connected through consent unless it is there. */
  async ensureMeta(orgId: string) {
    const page = this.page;
    await this.goto(orgId);
    await expect(page.getByRole('table', { name: 'Destinations' }).or(page.getByText('No destinations yet.'))).toBeVisible();
    const row = page.getByRole('row', { name: /Meta Ads/ }).first();
    if ((await row.count()) === 0) {
      await page.getByRole('button', { name: 'Connect Meta Ads' }).click();
      await expect(page.getByRole('heading', { name: 'SignalBridge wants to access your Facebook account' })).toBeVisible();
      await page.getByRole('button', { name: 'Allow' }).click();
      await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
    } else {
      await row.getByRole('button', { name: 'Configure' }).click();
    }
    const account = page.getByRole('checkbox', { name: /Acme Shoes \(Meta\)/ });
    await expect(account).toBeVisible();
    if (!(await account.isChecked())) {
      await account.check();
      await page.getByRole('button', { name: 'Save accounts' }).click();
      await expect(page.getByText(/^Saved: \d+ accounts?\.$/)).toBeVisible();
    }
  }
}
