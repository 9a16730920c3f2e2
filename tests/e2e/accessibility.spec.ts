import AxeBuilder from '@axe-core/playwright';
import { type Browser, type Page } from 'playwright/test';
import type { Result } from 'axe-core';
import { DEMO } from '@/scripts/lib/demo';
import { realPath, richOrganization, type RichOrganization } from '@/tests/e2e/richOrganization';
import { REDIRECTING_WHEN_SIGNED_IN, ROUTES } from '@/tests/e2e/routes';
import { LoginPage } from '@/tests/e2e/support/authPages';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * The accessibility sweep: axe-core (WCAG 2.1 A and AA) over every page of the route list, signed in to an
 * organization with something in every list, at a desktop and a phone width, plus the states a page
 * only shows after a click (the dry-run table, the snippet, the BigQuery preview, the time zone list, the
 * unfolded menu), the signed-out pages and the demo organization's marker. Every page must have 0 violations and, at 390 px,
 * must not scroll sideways. A failure lists each violation with the elements it found.
 */

const WIDTHS = [
  { label: '1280 px', viewport: { width: 1280, height: 800 } },
  { label: '390 px', viewport: { width: 390, height: 844 } },
] as const;

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

// Pages that send a signed-in user elsewhere (REDIRECTING_WHEN_SIGNED_IN) are swept signed out (or are the same page as another).
const SIGNED_OUT = ['/login', '/signUp', '/forgotPassword'];

const PER_PAGE_MS = 20_000;

interface Finding {
  where: string;
  violations: Result[];
  overflow: number | null;
  widest: string[];
}

/** One readable paragraph per violation: the rule, its impact, and each element with axe's summary. */
function readable(findings: Finding[]): string {
  const lines: string[] = [];
  for (const { where, violations, overflow, widest } of findings) {
    if (overflow !== null)
      lines.push(`${where}: the page scrolls sideways (${overflow} px wide)`, ...widest.map((element) => `    ${element}`));
    for (const violation of violations) {
      lines.push(`${where}: ${violation.id} (${violation.impact}) — ${violation.help} [${violation.nodes.length} element(s)]`);
      for (const node of violation.nodes.slice(0, 5)) {
        lines.push(`    ${node.target.join(' ')}`);
        const summary = node.failureSummary?.split('\n').slice(1, 3).join(' ').trim();
        if (summary) lines.push(`      ${summary}`);
      }
      if (violation.nodes.length > 5) lines.push(`    … and ${violation.nodes.length - 5} more`);
    }
  }
  return lines.join('\n');
}

/** Counts of violating elements per rule: printed with every run, so a change shows what it fixed. */
function countsPerRule(findings: Finding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { violations, overflow } of findings) {
    for (const violation of violations) counts[violation.id] = (counts[violation.id] ?? 0) + violation.nodes.length;
    if (overflow !== null) counts['page-scrolls-sideways'] = (counts['page-scrolls-sideways'] ?? 0) + 1;
  }
  return counts;
}

/** The innermost elements that reach past the screen's right edge: what widens a page that scrolls sideways. */
function widest(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const past = (element: Element) => element.getBoundingClientRect().right > window.innerWidth + 0.5;
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${[...element.classList].map((c) => `.${c}`).join('')}`;
    return [...document.body.querySelectorAll('*')]
      .filter((element) => past(element) && ![...element.children].some(past))
      .slice(0, 5)
      .map(
        (element) =>
          `${name(element)} (right edge ${Math.round(element.getBoundingClientRect().right)} px) “${(element.textContent ?? '').trim().slice(0, 40)}”`,
      );
  });
}

/** Waits for a page's heading and for its loading spinners to go. */
async function settled(page: Page) {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await expect(page.locator('.spinner[role="status"]')).toHaveCount(0);
}

async function audit(page: Page, where: string, phone: boolean): Promise<Finding> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const innerWidth = await page.evaluate(() => window.innerWidth);
  const overflow = phone && width > innerWidth ? width : null;
  return { where, violations, overflow, widest: overflow === null ? [] : await widest(page) };
}

async function signedOutFindings(browser: Browser, viewport: { width: number; height: number }, rich: RichOrganization, label: string) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const findings: Finding[] = [];
  const phone = viewport.width < 500;
  for (const path of [...SIGNED_OUT, realPath('/{org}/acceptInvitation/inv-1', rich)]) {
    await page.goto(path);
    await settled(page);
    findings.push(await audit(page, `${label} signed out ${path}`, phone));
  }
  await context.close();
  // The demo organization wears its marker on every page (a fresh browser: the invitation above is remembered).
  const demoContext = await browser.newContext({ viewport });
  const demo = await demoContext.newPage();
  await new LoginPage(demo).logIn(DEMO, { landing: `/${DEMO.orgId}/connection` });
  await settled(demo);
  await expect(demo.getByRole('note', { name: 'Demo data' })).toBeVisible();
  findings.push(await audit(demo, `${label} demo /${DEMO.orgId}/connection`, phone));
  await demoContext.close();
  return findings;
}

for (const { label, viewport } of WIDTHS) {
  test(`axe finds no WCAG 2.1 A/AA violation on any page at ${label}${viewport.width < 500 ? ', and none scrolls sideways' : ''}`, async ({
    page,
    browser,
    loginPage,
    destinationsPage,
  }) => {
    test.setTimeout(120_000 + ROUTES.length * PER_PAGE_MS);
    const phone = viewport.width < 500;
    const rich = await richOrganization();
    await page.setViewportSize(viewport);
    await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
    // A BigQuery destination through its form, as a user connects one: the preview below reads its table.
    await destinationsPage.connectBigQuery(rich.orgId);

    const findings: Finding[] = [];
    try {
      await sweep(page, browser, rich, label, phone, findings);
    } finally {
      console.log(`axe at ${label}: ${findings.length} pages, violating elements per rule ${JSON.stringify(countsPerRule(findings))}`);
      console.log(readable(findings));
    }
    const failing = findings.filter((finding) => finding.violations.length > 0 || finding.overflow !== null);
    expect(readable(failing), 'WCAG 2.1 A/AA violations or sideways scrolling').toBe('');
  });
}

async function sweep(page: Page, browser: Browser, rich: RichOrganization, label: string, phone: boolean, findings: Finding[]) {
  const viewport = page.viewportSize()!;
  for (const [route] of ROUTES) {
    if (REDIRECTING_WHEN_SIGNED_IN.has(route)) continue;
    const path = realPath(route, rich);
    await test.step(path, async () => {
      await page.goto(path);
      await settled(page);
      findings.push(await audit(page, `${label} ${route}`, phone));
    });
  }

  await test.step('the dry run’s table of rows', async () => {
    await page.goto(realPath('/{org}/connection/c-1/test1', rich));
    await page.getByLabel('Ad account', { exact: true }).selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Run test' }).click();
    await expect(page.getByRole('table', { name: 'Rows that would be written' })).toBeVisible({ timeout: 30_000 });
    findings.push(await audit(page, `${label} test1 with rows`, phone));
  });
  await test.step('the website snippet', async () => {
    await page.goto(realPath('/{org}/app/app-1/custom-submission', rich));
    await page.getByRole('button', { name: 'Show the snippet' }).click();
    await expect(page.getByTestId('capture-snippet')).toBeVisible();
    findings.push(await audit(page, `${label} custom-submission with the snippet`, phone));
  });
  await test.step('the conversion page’s other tabs (the sweep above saw its overview)', async () => {
    for (const tab of ['log', 'quality', 'counted', 'settings']) {
      await page.goto(`${realPath('/{org}/conversion/cv-1/configuration', rich)}?tab=${tab}`);
      await settled(page);
      findings.push(await audit(page, `${label} conversion ?tab=${tab}`, phone));
    }
  });
  await test.step('the BigQuery preview', async () => {
    await page.goto(`/${rich.orgId}/createConversion`);
    await page.getByRole('radio', { name: /Rows of a BigQuery table/ }).check();
    const reading = page.getByRole('group', { name: 'What to read from BigQuery' });
    await reading.getByLabel('Table', { exact: true }).fill('acme-warehouse.crm.qualified_leads');
    await reading.getByRole('button', { name: 'Load the columns and preview' }).click();
    await expect(reading.getByRole('table', { name: 'Preview of the first rows' })).toBeVisible({ timeout: 30_000 });
    findings.push(await audit(page, `${label} createConversion with the BigQuery preview`, phone));
  });
  await test.step('the time zone list, open', async () => {
    await page.goto(`/${rich.orgId}/createConnection`);
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    await zone.fill('europe');
    await zone.press('ArrowDown');
    await expect(page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option', { selected: true })).toBeVisible();
    findings.push(await audit(page, `${label} createConnection with the time zone list open`, phone));
  });
  if (phone) {
    await test.step('the unfolded menu', async () => {
      await page.goto(`/${rich.orgId}/connection`);
      await settled(page);
      await page.getByRole('button', { name: 'Menu' }).click();
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
      findings.push(await audit(page, `${label} menu open`, phone));
    });
  }
  findings.push(...(await signedOutFindings(browser, viewport, rich, label)));
}
