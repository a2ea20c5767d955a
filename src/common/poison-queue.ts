/**
 * The queue the Functions host moves a message to once its handler failed maxDequeueCount times:
 * `<queue>-poison`. The service writes its own poison records there too.
 */
export function poisonQueueName(queueName: string): string {
  return `${queueName}-poison`;
}
