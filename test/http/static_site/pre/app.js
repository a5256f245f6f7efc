// A script with a gzip variant made beforehand (taken as it is).
console.log("hello from app.js, hello from app.js, hello from app.js");
