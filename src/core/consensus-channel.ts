// The consensus engine's side of the network door: messages the engine sends fan out to the door's
// listeners (the network publishes them), messages peers send reach the engine when one runs. The
// core owns it so the engine can come and go (it runs only while this node is a validator of a set
// larger than itself) without the network knowing.
import type { IrisTransport } from '../consensus/iris/ports.ts';
import type { ConsensusVerdict } from './chain-door.ts';

type Receiver = (message: Uint8Array) => Promise<ConsensusVerdict>;

export class ConsensusChannel implements IrisTransport {
  private readonly outgoing: ((message: Uint8Array) => void)[] = [];
  private receiver: Receiver | undefined;

  broadcast(message: Uint8Array): void {
    for (const l of this.outgoing) l(message);
  }

  onMessage(listener: Receiver): void {
    this.receiver = listener;
  }

  /** The engine stopped: messages from peers are ignored until another starts. */
  detach(): void {
    this.receiver = undefined;
  }

  /** From the network. */
  receive(message: Uint8Array): Promise<ConsensusVerdict> {
    return this.receiver ? this.receiver(message) : Promise.resolve('ignored');
  }

  /** To the network. */
  onOutgoing(listener: (message: Uint8Array) => void): void {
    this.outgoing.push(listener);
  }
}
