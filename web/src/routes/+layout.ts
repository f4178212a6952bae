// The web app renders in the browser and reads everything through /api/v1 with the session cookie
// (docs/decisions.md "Web app"): no server-side load ever holds a session or calls the API.
export const ssr = false;
export const prerender = false;
