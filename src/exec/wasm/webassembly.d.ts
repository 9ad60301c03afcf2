// The part of the WebAssembly JavaScript API the wasm VM uses. TypeScript declares it in its DOM
// library only, which this project leaves out (Node, not a browser); @types/node 20 declares the
// namespace without its members.
declare namespace WebAssembly {
  type ValueType = 'i32' | 'i64' | 'f32' | 'f64';
  type ImportExportKind = 'function' | 'global' | 'memory' | 'table';
  interface ModuleImportDescriptor {
    module: string;
    name: string;
    kind: ImportExportKind;
  }
  interface ModuleExportDescriptor {
    name: string;
    kind: ImportExportKind;
  }
  class Module {
    constructor(bytes: Uint8Array);
    static imports(module: Module): ModuleImportDescriptor[];
    static exports(module: Module): ModuleExportDescriptor[];
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  class Global {
    constructor(descriptor: { value: ValueType; mutable?: boolean }, value?: number | bigint);
    value: number | bigint;
  }
  type ExportValue = ((...args: any[]) => unknown) | Global | Memory;
  type Exports = Record<string, ExportValue>;
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Exports;
  }
  type ImportValue = ExportValue;
  type Imports = Record<string, Record<string, ImportValue>>;
  class CompileError extends Error {}
  class LinkError extends Error {}
  class RuntimeError extends Error {}
  function validate(bytes: Uint8Array): boolean;
  function compile(bytes: Uint8Array): Promise<Module>;
  function instantiate(bytes: Uint8Array, imports?: Imports): Promise<{ module: Module; instance: Instance }>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}
