// The collection admin jobs share, told apart by `kind`: replay jobs and the replay lock,
// backfill jobs and their identity locks. Its own module so neither job runner imports the other.
export const JOBS_COLLECTION = 'jobs';
