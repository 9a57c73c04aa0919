target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResBind = type { i32, i32, i32, i8 }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.i64 = type { i64, i64, i64, i64, i32 }
%"class.StructuredBuffer<unsigned long long>" = type { i64 }
%"class.RWStructuredBuffer<unsigned long long>" = type { i64 }

@"\01?uv@@3PA_KA" = external addrspace(3) global [11 x i64], align 8
@"\01?sv@@3PA_JA" = external addrspace(3) global [11 x i64], align 8

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 0, i32 0, i32 0, i8 1 }, i32 0, i1 false)
  %2 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind zeroinitializer, i32 0, i1 false)
  %3 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %4 = icmp eq i32 %3, 1
  %5 = icmp eq i32 %3, 4
  %6 = or i1 %4, %5
  %7 = icmp eq i32 %3, 7
  %8 = or i1 %7, %6
  %9 = sext i1 %8 to i64
  %10 = getelementptr [11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 %3
  store i64 %9, i64 addrspace(3)* %10, align 8, !tbaa !13
  %11 = getelementptr [11 x i64], [11 x i64] addrspace(3)* @"\01?sv@@3PA_JA", i32 0, i32 %3
  store i64 0, i64 addrspace(3)* %11, align 8, !tbaa !13
  call void @dx.op.barrier(i32 80, i32 9)
  %12 = icmp ult i32 %3, 4
  br i1 %12, label %13, label %32

13:                                               ; preds = %0
  %14 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 12, i32 8 })
  %15 = call %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32 139, %dx.types.Handle %14, i32 %3, i32 0, i8 1, i32 8)
  %16 = extractvalue %dx.types.ResRet.i64 %15, 0
  %17 = atomicrmw add i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 0), i64 %16 seq_cst, align 8
  %18 = xor i64 %16, -1
  %19 = atomicrmw and i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 1), i64 %18 seq_cst, align 8
  %20 = atomicrmw or i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 2), i64 %16 seq_cst, align 8
  %21 = atomicrmw umax i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 3), i64 %16 seq_cst, align 8
  %22 = atomicrmw umin i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 4), i64 %16 seq_cst, align 8
  %23 = atomicrmw max i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?sv@@3PA_JA", i32 0, i32 5), i64 %16 seq_cst, align 8
  %24 = atomicrmw min i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?sv@@3PA_JA", i32 0, i32 6), i64 %16 seq_cst, align 8
  %25 = atomicrmw xor i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 7), i64 %16 seq_cst, align 8
  %26 = atomicrmw xchg i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 8), i64 %16 seq_cst, align 8
  %27 = cmpxchg i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 9), i64 0, i64 %16 seq_cst seq_cst, align 8
  %28 = add i64 %16, 1
  %29 = cmpxchg i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 9), i64 0, i64 %28 seq_cst seq_cst, align 8
  %30 = cmpxchg i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 10), i64 0, i64 %16 seq_cst seq_cst, align 8
  %31 = cmpxchg i64 addrspace(3)* getelementptr inbounds ([11 x i64], [11 x i64] addrspace(3)* @"\01?uv@@3PA_KA", i32 0, i32 10), i64 0, i64 %28 seq_cst seq_cst, align 8
  br label %32

32:                                               ; preds = %13, %0
  call void @dx.op.barrier(i32 80, i32 9)
  %33 = add i32 %3, -5
  %34 = icmp ult i32 %33, 2
  br i1 %34, label %35, label %37

35:                                               ; preds = %32
  %36 = load i64, i64 addrspace(3)* %11, align 8, !tbaa !13
  br label %39

37:                                               ; preds = %32
  %38 = load i64, i64 addrspace(3)* %10, align 8, !tbaa !13
  br label %39

39:                                               ; preds = %37, %35
  %40 = phi i64 [ %36, %35 ], [ %38, %37 ]
  %41 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 8 })
  call void @dx.op.rawBufferStore.i64(i32 140, %dx.types.Handle %41, i32 %3, i32 0, i64 %40, i64 undef, i64 undef, i64 undef, i8 1, i32 8)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.threadId.i32(i32, i32) #0

; Function Attrs: noduplicate nounwind
declare void @dx.op.barrier(i32, i32) #1

; Function Attrs: nounwind
declare void @dx.op.rawBufferStore.i64(i32, %dx.types.Handle, i32, i32, i64, i64, i64, i64, i8, i32) #2

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32, %dx.types.Handle, i32, i32, i8, i32) #3

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1) #0

attributes #0 = { nounwind readnone }
attributes #1 = { noduplicate nounwind }
attributes #2 = { nounwind }
attributes #3 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.entryPoints = !{!10}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 6}
!2 = !{i32 1, i32 7}
!3 = !{!"cs", i32 6, i32 6}
!4 = !{!5, !8, null, null}
!5 = !{!6}
!6 = !{i32 0, %"class.StructuredBuffer<unsigned long long>"* undef, !"", i32 0, i32 0, i32 1, i32 12, i32 0, !7}
!7 = !{i32 1, i32 8}
!8 = !{!9}
!9 = !{i32 0, %"class.RWStructuredBuffer<unsigned long long>"* undef, !"", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !7}
!10 = !{void ()* @main, !"main", null, !4, !11}
!11 = !{i32 0, i64 269484048, i32 4, !12}
!12 = !{i32 11, i32 1, i32 1}
!13 = !{!14, !14, i64 0}
!14 = !{!"long long", !15, i64 0}
!15 = !{!"omnipotent char", !16, i64 0}
!16 = !{!"Simple C/C++ TBAA"}
