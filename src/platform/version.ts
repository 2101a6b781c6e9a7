/** The version of Stratus: written into snapshots, shown on the console's landing page. */
export const STRATUS_VERSION = '0.1.0';
