// A setup file of every test file: the folders its tests made with tempDir() are removed when
// it ends. Registered before the file's own hooks, so it runs after their afterAll (hooks run in
// the reverse of their order).
import { afterAll } from 'vitest';
import { removeTempDirs } from '../support/temp-dirs.js';

afterAll(removeTempDirs);
