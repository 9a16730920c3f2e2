import { expect, type Locator, type Page } from 'playwright/test';

/** /{org}/app: the websites whose form submissions become conversions. */
export class AppsPage {
  constructor(readonly page: Page) {}

  /** An app named `name`, added through the form unless the organization has it already. */
  async ensureApp(orgId: string, name: string) {
    const page = this.page;
    await page.goto(`/${orgId}/app`);
    await expect(page.getByRole('table', { name: 'Apps' }).or(page.getByText('No apps yet.'))).toBeVisible();
    if ((await page.getByRole('row', { name: new RegExp(`^${name} `) }).count()) > 0) return;
    await page.goto(`/${orgId}/app/connect`);
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Website URL').fill('https://store.example');
    await page.getByLabel('Google Tag Manager container id').fill('GTM-E2E123');
    await page.getByRole('button', { name: 'Add app' }).click();
    await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  }
}

/** /{org}/createConversion: source, destination, mapping, review — one step at a time. */
export class NewConversionPage {
  constructor(readonly page: Page) {}

  /** A step's heading ('Choose a source', 'Choose a destination', 'Map the events', 'Review and create'). */
  step(name: string): Locator {
    return this.page.getByRole('heading', { name });
  }

  get continueButton(): Locator {
    return this.page.getByRole('button', { name: 'Continue' });
  }

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/createConversion`);
  }

  async continue() {
    await this.continueButton.click();
  }

  /** The source step: the form submissions of the app `appName`. */
  async chooseApp(appName: string) {
    await this.page.getByRole('radio', { name: new RegExp(`^${appName} Form submissions`) }).check();
    await this.continue();
  }

  /** The destination step: Meta's account 101 and its pixel, from the Meta destination a test connected. */
  async chooseMetaPixel() {
    await this.page
      .getByRole('radio', { name: /Meta Ads · Sandbox Marketer/ })
      .first()
      .check();
    await this.page.getByLabel('Ad account', { exact: true }).selectOption({ label: 'Acme Shoes (Meta) · 101' });
    await this.page.getByLabel('Pixel', { exact: true }).selectOption({ label: 'Acme Shoes Pixel · 555000111' });
    await this.continue();
  }
}

/** /{org}/conversion and a conversion's configuration page. */
export class ConversionsPage {
  constructor(readonly page: Page) {}

  get deliveryLog(): Locator {
    return this.page.getByRole('list', { name: 'Delivery log' });
  }

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/conversion`);
  }

  /** A conversion's page, on one of its tabs (`?tab=`), the overview by default. */
  async open(orgId: string, conversionId: string, tab?: 'log' | 'quality' | 'counted' | 'settings') {
    await this.page.goto(`/${orgId}/conversion/${conversionId}/configuration${tab ? `?tab=${tab}` : ''}`);
  }

  /** Selects a tab of a conversion's page by its name ("Delivery log", "Settings"…). */
  async openTab(name: string) {
    await this.page.getByRole('tablist', { name: 'Conversion sections' }).getByRole('tab', { name }).click();
  }

  row(name: string): Locator {
    return this.page.getByRole('row', { name: new RegExp(name) });
  }
}
