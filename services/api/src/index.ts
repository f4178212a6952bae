export { type AppDeps, createApp } from './app';
export { createHttpServer } from './server';
export { loadWebHandler, WEB_BUILD_DIR } from './web-handler';
