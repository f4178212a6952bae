export * from './chat-reply';
export * from './decide';
export * from './link';
export * from './list';
export * from './open';
export * from './present';
export * from './types';
