/** Which database a store runs on: the embedded default or PostgreSQL. */
export type Dialect = 'sqlite' | 'postgres';
