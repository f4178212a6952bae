export { type AppDeps, createApp } from './app';
export { createHttpServer } from './server';
