// Vite's `?url` imports: the URL of a file copied into the build.
declare module '*?url' {
  const url: string;
  export default url;
}
