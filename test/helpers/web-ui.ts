// Steps through the web app's account half that the other browser suites take on the way
// (a place in the navigation, a detail added, the display name), written once.
import type { Page } from 'playwright-core';

/** A place in the navigation: the bar or side list, or the phone's "More" list. */
export async function goTo(page: Page, name: string, view: string): Promise<void> {
  const nav = page.locator('#nav');
  // A place with requests waiting reads "People 2 waiting".
  const link = nav.getByRole('link', { name: new RegExp(`^${name}( \\d+\\+? waiting)?$`) });
  if (!(await link.isVisible())) await nav.getByRole('button', { name: 'More' }).click();
  await link.click();
  await page.locator(`main[data-view="${view}"]`).waitFor();
  await page.locator('main .skeleton').first().waitFor({ state: 'detached' });
}

/** Adds a detail on the Fields screen: `kind` is its name in the picker ("Phone", "E-mail"). */
export async function addField(page: Page, kind: string, fill: (editor: ReturnType<Page['locator']>) => Promise<void>, shows: string): Promise<void> {
  await page.getByRole('button', { name: 'Add a detail' }).click();
  await page.locator('#field-types').getByRole('button', { name: kind, exact: true }).click();
  const editor = page.locator('#field-editor');
  await fill(editor);
  await editor.getByRole('button', { name: /^Add / }).click();
  await page.locator('#fields li', { hasText: shows }).waitFor();
}

/** Changes a detail in place: `title` is how the list names it ("Mobile", "Phone"). */
export async function editField(page: Page, title: string, fill: (form: ReturnType<Page['locator']>) => Promise<void>, shows: string): Promise<void> {
  await page.getByRole('button', { name: `Edit ${title}`, exact: true }).click();
  const form = page.locator('#fields li.editing form');
  await fill(form);
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('#fields li', { hasText: shows }).waitFor();
}

export async function setDisplayName(page: Page, name: string): Promise<void> {
  await goTo(page, 'Account', 'account');
  await page.getByLabel('Display name').fill(name);
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByRole('heading', { name }).waitFor();
}
