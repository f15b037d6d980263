// Draws the web app's PNG icons from web/public/favicon.svg with Debian's Chromium
// (playwright-core): the favicon fallback, the Apple touch icon and the manifest's icons,
// among them a maskable one with room around the mark. Run after changing the SVG:
//   npx tsx scripts/write-web-icons.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { projectRoot } from '../src/platform/paths.js';

const PUBLIC = join(projectRoot, 'web', 'public');
const svg = readFileSync(join(PUBLIC, 'favicon.svg'), 'utf8');
const ICONS: { file: string; size: number; maskable?: boolean }[] = [
  { file: 'favicon-32.png', size: 32 },
  { file: 'apple-touch-icon.png', size: 180 },
  { file: 'icon-192.png', size: 192 },
  { file: 'icon-512.png', size: 512 },
  // Maskable: the platform crops to its own shape, so the mark sits in the middle 80 %.
  { file: 'icon-maskable-512.png', size: 512, maskable: true },
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  for (const { file, size, maskable } of ICONS) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const inner = maskable ? Math.round(size * 0.8) : size;
    const drawn = svg.replace('<svg ', `<svg width="${inner}" height="${inner}" `).replace(maskable ? 'rx="14"' : '\u0000', maskable ? 'rx="0"' : '');
    const background = maskable ? 'background:linear-gradient(135deg,#4c6ef5,#15aabf);' : 'background:transparent;';
    await page.setContent(`<html><body style="margin:0;width:${size}px;height:${size}px;display:grid;place-items:center;${background}">${drawn}</body></html>`);
    await page.screenshot({ path: join(PUBLIC, file), omitBackground: !maskable });
    await page.close();
    console.log(`wrote web/public/${file}`);
  }
} finally {
  await browser.close();
}
