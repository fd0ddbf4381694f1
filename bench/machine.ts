import os from 'node:os';

/** One line describing the machine and runtime a bench ran on. */
export function describeMachine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const memoryGiB = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${model}, ${cpus.length} cores (${os.availableParallelism()} available), ${memoryGiB} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()} (${process.platform}/${process.arch})`;
}
