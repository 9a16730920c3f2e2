/** Mixpanel's app API host per data residency. */
export const mixpanelConfig = () => ({
  appApiUrl: {
    US: process.env.MIXPANEL_API_URL_US || 'https://mixpanel.com',
    EU: process.env.MIXPANEL_API_URL_EU || 'https://eu.mixpanel.com',
    IN: process.env.MIXPANEL_API_URL_IN || 'https://in.mixpanel.com',
  },
});
